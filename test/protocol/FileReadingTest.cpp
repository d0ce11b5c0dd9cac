// readSourceFile (protocol/support): the bytes of regular files exactly, the
// cap, and no wait on a FIFO; on real files in a fresh folder.
#include "pallas/support/FileReading.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pallas::support {
namespace {

class FileReading : public testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/pallas-read-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(FileReading, RegularFilesOfEverySizeComeBackByteForByte) {
  // Around the 4 KiB probe and the 64 KiB growth step the reader uses.
  for (size_t size : {0u, 1u, 4095u, 4096u, 4097u, 65536u, 70000u, 300000u}) {
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; ++i)
      bytes[i] = static_cast<char>('a' + i % 26);
    std::string why;
    auto text = readSourceFile(write("f" + std::to_string(size) + ".py", bytes), &why);
    ASSERT_TRUE(text) << size << ": " << why;
    EXPECT_EQ(*text, bytes) << size;
  }
}

TEST_F(FileReading, OverTheCapAFifoAndAMissingFileSayWhy) {
  std::string why;
  EXPECT_FALSE(readSourceFile(write("big.py", std::string(100, 'x')), &why, 99));
  EXPECT_EQ(why, "larger than 99 bytes");
  std::string fifo = (dir_ / "pipe").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(readSourceFile(fifo, &why));
  EXPECT_EQ(why, "not a regular file (a FIFO)");
  EXPECT_FALSE(readSourceFile((dir_ / "none.py").string(), &why));
  EXPECT_EQ(why, "No such file or directory");
  EXPECT_TRUE(readSourceFile(write("exact.py", std::string(99, 'x')), &why, 99));
}

} // namespace
} // namespace pallas::support
