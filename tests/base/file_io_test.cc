// Unit tests of base/file_io on hostile and unusual inputs: very long lines, decompression bombs,
// gzip padding and members, pipes and FIFOs, devices.
#include "toposcope/base/file_io.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include "toposcope/base/diagnostics.h"
#include "gzip_text.h"

namespace toposcope {
namespace file_io_test {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("toposcope_file_io_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
}

using testing_support::Gzip;

// A stream of `head`, then `fill` bytes of 'x', then `tail`, handed out at most `step` bytes per
// Read: a long line without holding it in memory.
class GeneratedStream final : public InputStream {
 public:
  GeneratedStream(std::string head, int64_t fill, std::string tail, size_t step)
      : head_(std::move(head)), fill_(fill), tail_(std::move(tail)), step_(step) {}
  Result<size_t> Read(char* buf, size_t n) override {
    n = std::min(n, step_);
    size_t k = 0;
    while (k < n) {
      const int64_t total = static_cast<int64_t>(head_.size()) + fill_ + static_cast<int64_t>(tail_.size());
      if (pos_ >= total) break;
      if (pos_ < static_cast<int64_t>(head_.size())) {
        buf[k] = head_[pos_];
      } else if (pos_ < static_cast<int64_t>(head_.size()) + fill_) {
        buf[k] = 'x';
      } else {
        buf[k] = tail_[pos_ - static_cast<int64_t>(head_.size()) - fill_];
      }
      ++k;
      ++pos_;
    }
    return k;
  }
  [[nodiscard]] const std::string& path() const override { return path_; }

 private:
  std::string head_;
  int64_t fill_;
  std::string tail_;
  size_t step_;
  int64_t pos_ = 0;
  std::string path_ = "gen.txt";
};

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A 12 MiB line (under the cap) arriving 4 KiB per read: the reader never rescans what it
// already searched, so this takes milliseconds (it took seconds when every fill rescanned).
TEST(LineReader, LongLineIsLinearInItsLength) {
  const int64_t n = int64_t{12} << 20;
  LineReader lr(std::make_unique<GeneratedStream>("a\n", n, "\nb\n", 4096));
  const auto t0 = std::chrono::steady_clock::now();
  std::string_view line;
  ASSERT_TRUE(lr.Next(&line));
  EXPECT_EQ(line, "a");
  ASSERT_TRUE(lr.Next(&line));
  EXPECT_EQ(static_cast<int64_t>(line.size()), n);
  EXPECT_EQ(lr.line_number(), 2);
  ASSERT_TRUE(lr.Next(&line));
  EXPECT_EQ(line, "b");
  EXPECT_EQ(lr.byte_offset(), 2 + n + 1);
  EXPECT_FALSE(lr.Next(&line));
  EXPECT_TRUE(lr.oversized().empty());
  EXPECT_LT(SecondsSince(t0), 2.0);
}

// A 320 MiB line passes the 16 MiB cap: skipped with its number, offset and length, in bounded
// memory and linear time; the lines after it are read with the right numbers.
TEST(LineReader, LineOverTheCapIsSkippedAndListed) {
  const int64_t n = int64_t{320} << 20;
  LineReader lr(std::make_unique<GeneratedStream>("first\n", n, "\nafter\nlast", 1 << 16));
  const auto t0 = std::chrono::steady_clock::now();
  std::string_view line;
  ASSERT_TRUE(lr.Next(&line));
  EXPECT_EQ(line, "first");
  ASSERT_TRUE(lr.Next(&line));
  EXPECT_EQ(line, "after");
  EXPECT_EQ(lr.line_number(), 3);
  EXPECT_EQ(lr.byte_offset(), 6 + n + 1);
  ASSERT_TRUE(lr.Next(&line));
  EXPECT_EQ(line, "last");
  EXPECT_FALSE(lr.Next(&line));
  ASSERT_EQ(lr.oversized().size(), 1U);
  EXPECT_EQ(lr.oversized()[0].line, 2);
  EXPECT_EQ(lr.oversized()[0].byte_offset, 6);
  EXPECT_EQ(lr.oversized()[0].bytes, n);
  EXPECT_LT(SecondsSince(t0), 10.0);
  Diagnostics diag;
  ReadCounts counts;
  counts.read = counts.accepted = 3;
  EXPECT_EQ(RejectOversizedLines(lr, diag, counts), 1);
  EXPECT_TRUE(counts.Balanced());
  EXPECT_EQ(counts.rejected, 1);
  ASSERT_EQ(diag.items().size(), 1U);
  EXPECT_EQ(diag.items()[0].source, "gen.txt");
  EXPECT_EQ(diag.items()[0].line, 2);
  EXPECT_NE(diag.items()[0].reason.find(std::to_string(n) + " bytes"), std::string::npos) << diag.items()[0].reason;
  EXPECT_EQ(RejectOversizedLines(lr, diag, counts), 0);  // handed out once
}

TEST(LineReader, CapAppliesInsideOneChunkAndAtTheEnd) {
  const std::string text = "ok\n" + std::string(11, 'y') + "\r\nexact1234\n" + std::string(30, 'z');
  LineReader lr(std::make_unique<TextInputStream>(text, "t.txt"), 10);
  std::string_view line;
  ASSERT_TRUE(lr.Next(&line));
  EXPECT_EQ(line, "ok");
  ASSERT_TRUE(lr.Next(&line));
  EXPECT_EQ(line, "exact1234");
  EXPECT_EQ(lr.line_number(), 3);
  EXPECT_FALSE(lr.Next(&line));
  ASSERT_EQ(lr.oversized().size(), 2U);
  EXPECT_EQ(lr.oversized()[0].line, 2);
  EXPECT_EQ(lr.oversized()[0].byte_offset, 3);
  EXPECT_EQ(lr.oversized()[1].line, 4);
  EXPECT_EQ(lr.oversized()[1].bytes, 30);
  EXPECT_EQ(lr.line_number(), 4);
}

// A 2 MB gzip file that inflates to 1 GiB is refused at the cap, before the buffer grows past it.
TEST(FileIo, DecompressionBombStopsAtTheCap) {
  const std::string path = TempPath("bomb.txt.gz");
  std::string member = Gzip(std::string(size_t{64} << 20, ' '));
  std::string bytes;
  for (int i = 0; i < 16; ++i) bytes += member;
  WriteBytes(path, bytes);
  auto r = ReadFileText(path, kMaxWholeInputBytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kInput);
  EXPECT_NE(r.error().ToString().find(path), std::string::npos);
  EXPECT_NE(r.error().message.find("input too large"), std::string::npos) << r.error().message;
  std::filesystem::remove(path);
}

// gzip -d accepts NUL bytes after the last member (and reads every member): so do we.
TEST(FileIo, GzipNulPaddingAndConcatenatedMembers) {
  const std::string path = TempPath("padded.txt.gz");
  WriteBytes(path, Gzip("one\n") + Gzip("two\n") + std::string(3000, '\0'));
  auto r = ReadFileText(path);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(*r, "one\ntwo\n");
  // A member after padding is not padding: a clear error with the byte offset.
  WriteBytes(path, Gzip("one\n") + std::string(10, '\0') + "junk");
  auto bad = ReadFileText(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("after the NUL padding"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("byte "), std::string::npos);
  std::filesystem::remove(path);
}

// A FIFO is read once, into a copy: sniffing its head and reading it again see the same bytes.
TEST(FileIo, FifoIsReadOnceAndReopenedFromItsCopy) {
  const std::string path = TempPath("fifo");
  std::filesystem::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  std::thread writer([&] {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return;
    std::fputs("line 1\nline 2\n", f);
    std::fclose(f);
  });
  auto head = ReadHead(path, 4);
  writer.join();
  ASSERT_TRUE(head.ok()) << head.error().ToString();
  EXPECT_EQ(*head, "line");
  auto all = ReadFileText(path);
  ASSERT_TRUE(all.ok()) << all.error().ToString();
  EXPECT_EQ(*all, "line 1\nline 2\n");
  EXPECT_NE(ReadablePathOf(path), path);
  std::filesystem::remove(path);
}

// A FIFO nobody writes is an error after a bounded wait, not a hang.
TEST(FileIo, FifoWithoutWriterIsAnErrorNotAHang) {
  const std::string path = TempPath("lonely_fifo");
  std::filesystem::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = OpenInput(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no writer"), std::string::npos) << r.error().message;
  EXPECT_LT(SecondsSince(t0), kFifoWriterWaitMs / 1000.0 + 2.0);
  std::filesystem::remove(path);
}

TEST(FileIo, DevicesAreRefused) {
  auto r = OpenInput("/dev/zero");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("is a device"), std::string::npos) << r.error().message;
}

}  // namespace file_io_test
}  // namespace toposcope
