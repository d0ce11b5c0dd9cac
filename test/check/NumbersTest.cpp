// Numbers from users, read strictly (config/Numbers.h, issue 34): what
// `run --timeout`, `--runs`, `serve --debounce-ms` and the editor's
// runner.timeoutSeconds accept.
#include "config/Numbers.h"

#include <gtest/gtest.h>

using namespace pallas::check;

TEST(Numbers, DecimalsArePlainAndFinite) {
  EXPECT_EQ(parseDecimal("300"), 300.0);
  EXPECT_EQ(parseDecimal("2.5"), 2.5);
  EXPECT_EQ(parseDecimal(".5"), 0.5);
  EXPECT_EQ(parseDecimal("5."), 5.0);
  EXPECT_EQ(parseDecimal("1e3"), 1000.0);
  EXPECT_EQ(parseDecimal("1E-3"), 0.001);
  for (const char* bad : {"", "nan", "NaN", "inf", "-inf", "infinity", "0x10", "1e400", " 5", "5 ",
                          "+5", "-5", "1e", "e5", ".", "1.2.3", "5s", "1,5"})
    EXPECT_EQ(parseDecimal(bad), std::nullopt) << bad;
}

TEST(Numbers, WholeNumbersAreDigitsThatFit) {
  EXPECT_EQ(parseWholeNumber("0"), 0u);
  EXPECT_EQ(parseWholeNumber("18446744073709551615"), UINT64_MAX);
  for (const char* bad : {"", "18446744073709551616", "1e10", "2.5", "-1", "+1", " 1", "0x1"})
    EXPECT_EQ(parseWholeNumber(bad), std::nullopt) << bad;
}

// 1e10 s overflowed into a timeout of 0.15 s; 0.0001 rounded to 0 (none).
TEST(Numbers, TimeoutsAreInRangeAndNeverRoundToNothing) {
  EXPECT_EQ(timeoutProblem(300, false), std::nullopt);
  EXPECT_EQ(timeoutProblem(0.001, false), std::nullopt);
  EXPECT_EQ(timeoutProblem(kMaxTimeoutSeconds, false), std::nullopt);
  EXPECT_EQ(timeoutProblem(0, true), std::nullopt);
  EXPECT_NE(timeoutProblem(0, false), std::nullopt);
  EXPECT_NE(timeoutProblem(1e10, true), std::nullopt);
  EXPECT_NE(timeoutProblem(0.0001, true), std::nullopt);
  EXPECT_NE(timeoutProblem(-1, true), std::nullopt);
  EXPECT_NE(timeoutProblem(std::numeric_limits<double>::infinity(), true), std::nullopt);
  EXPECT_NE(timeoutProblem(std::numeric_limits<double>::quiet_NaN(), true), std::nullopt);
  EXPECT_EQ(timeoutMilliseconds(0.001).count(), 1);
  EXPECT_EQ(timeoutMilliseconds(0.0015).count(), 2); // rounded up
  EXPECT_EQ(timeoutMilliseconds(kMaxTimeoutSeconds).count(), 604800000);
}
