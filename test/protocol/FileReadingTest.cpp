// readSourceFile (protocol/support): the bytes of regular files exactly, the
// cap, and no wait on a FIFO; on real files in a fresh folder, and on procfs
// files, whose content is larger than the size on disk (0).
#include "pallas/support/FileReading.h"

#include <atomic>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/stat.h>
#include <thread>
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

// What this process has read so far, as the kernel counts it (/proc/self/io:
// bytes returned by read(2) and the number of calls), read with plain
// iostreams so that the reader under test does not count itself.
struct ReadCounters {
  long long bytes = -1, calls = -1;
};
ReadCounters readCounters() {
  std::ifstream io("/proc/self/io");
  ReadCounters c;
  std::string key;
  long long value = 0;
  while (io >> key >> value) {
    if (key == "rchar:")
      c.bytes = value;
    if (key == "syscr:")
      c.calls = value;
  }
  return c;
}

TEST(FileReadingProcfs, ContentBeyondTheSizeOnDiskIsReadToTheEnd) {
  struct stat st{};
  ASSERT_EQ(stat("/proc/self/status", &st), 0);
  ASSERT_EQ(st.st_size, 0) << "procfs reports no size: the content is all beyond it";
  std::string why;
  auto status = readSourceFile("/proc/self/status", &why);
  ASSERT_TRUE(status) << why;
  EXPECT_EQ(status->rfind("Name:", 0), 0u) << *status;
  EXPECT_NE(status->find("\nPid:"), std::string::npos);
  EXPECT_EQ(status->back(), '\n');
  // smaps is larger than one probe (4 KiB): the read goes on in the grown buffer.
  auto smaps = readSourceFile("/proc/self/smaps", &why);
  ASSERT_TRUE(smaps) << why;
  EXPECT_GT(smaps->size(), 4096u);
  EXPECT_NE(smaps->find("Rss:"), std::string::npos);
  EXPECT_EQ(smaps->back(), '\n');
}

TEST(FileReadingProcfs, ContentBeyondTheCapSaysLargerThanTheCap) {
  // /proc/self/status holds ~1.4 KB, all of it returned by the first probe:
  // the probe crosses the cap (issue 36: the buffer was then shrunk below
  // what was read, and the next read's length wrapped around: "Bad address").
  std::string why;
  EXPECT_FALSE(readSourceFile("/proc/self/status", &why, 1000));
  EXPECT_EQ(why, "larger than 1000 bytes");
  EXPECT_FALSE(readSourceFile("/proc/self/smaps", &why, 5000));
  EXPECT_EQ(why, "larger than 5000 bytes");
}

TEST(FileReadingProcfs, ReadingStopsAtTheCapNotAtTheEnd) {
  // Past the cap the reader stops: an endless (or fast-growing) file is not
  // read to its end. With a 100-byte cap, one probe of /proc/self/smaps
  // (tens of KiB, a page or so per read) crosses it.
  std::string whole, why;
  {
    std::ifstream f("/proc/self/smaps");
    std::stringstream ss;
    ss << f.rdbuf();
    whole = ss.str();
  }
  ASSERT_GT(whole.size(), 3u * 4096) << "smaps must be larger than three probes";
  ReadCounters before = readCounters();
  EXPECT_FALSE(readSourceFile("/proc/self/smaps", &why, 100));
  ReadCounters after = readCounters();
  EXPECT_EQ(why, "larger than 100 bytes");
  ASSERT_GE(before.bytes, 0) << "no /proc/self/io";
  // Reading /proc/self/io itself counts too: a few hundred bytes, two calls.
  EXPECT_LE(after.bytes - before.bytes, 4096 + 2048) << "read on past the cap";
  EXPECT_LE(after.calls - before.calls, 1 + 3) << "read on past the cap";
}

TEST_F(FileReading, AFileThatGrowsDuringTheReadIsReadWholeOrRefused) {
  // A writer appends while the reader reads a file that was empty when
  // opened (fstat: 0 bytes). Whenever the reader sees the end, the result is
  // what was written so far, or "larger than" the cap: never an error of the
  // read itself, never more than the cap, and never read far past it.
  constexpr size_t kCap = 1024 * 1024;
  constexpr size_t kChunk = 4096, kTotal = 16 * kCap;
  for (int round = 0; round < 3; ++round) {
    std::string path = write("growing" + std::to_string(round) + ".py", "");
    std::atomic<bool> stop{false};
    std::thread writer([&] {
      int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
      ASSERT_GE(fd, 0);
      std::string chunk(kChunk, 'x');
      for (size_t n = 0; n < kTotal && !stop; n += kChunk)
        ASSERT_EQ(::write(fd, chunk.data(), chunk.size()), static_cast<ssize_t>(chunk.size()));
      ::close(fd);
    });
    ReadCounters before = readCounters();
    std::string why;
    auto text = readSourceFile(path, &why, kCap);
    ReadCounters after = readCounters();
    stop = true;
    writer.join();
    if (text) {
      EXPECT_LE(text->size(), kCap);
      EXPECT_EQ(text->find_first_not_of('x'), std::string::npos);
    } else {
      EXPECT_EQ(why, "larger than 1 MiB");
    }
    EXPECT_LE(after.bytes - before.bytes, static_cast<long long>(kCap + 2 * 64 * 1024 + 8192))
        << "read on past the cap";
  }
}

} // namespace
} // namespace pallas::support
