#include "toposcope/base/file_io.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

namespace toposcope {
namespace {

constexpr size_t kChunk = 1 << 16;

class FileStream : public InputStream {
 public:
  FileStream(std::string path, FILE* f, bool owned) : path_(std::move(path)), f_(f), owned_(owned) {}
  ~FileStream() override {
    if (owned_ && f_ != nullptr) std::fclose(f_);
  }
  FileStream(const FileStream&) = delete;
  FileStream& operator=(const FileStream&) = delete;

  Result<size_t> Read(char* buf, size_t n) override {
    if (!pending_.empty()) {
      const size_t k = std::min(n, pending_.size() - pending_pos_);
      std::memcpy(buf, pending_.data() + pending_pos_, k);
      pending_pos_ += k;
      if (pending_pos_ == pending_.size()) pending_.clear();
      return k;
    }
    const size_t got = std::fread(buf, 1, n, f_);
    if (got == 0 && std::ferror(f_) != 0) return MakeError(path_, 0, 0, "read failed");
    return got;
  }
  [[nodiscard]] const std::string& path() const override { return path_; }
  // Pushes back bytes read for sniffing.
  void Unread(std::string bytes) {
    pending_ = std::move(bytes);
    pending_pos_ = 0;
  }

 private:
  std::string path_;
  FILE* f_;
  bool owned_;
  std::string pending_;
  size_t pending_pos_ = 0;
};

class GzipStream : public InputStream {
 public:
  GzipStream(std::unique_ptr<FileStream> raw) : raw_(std::move(raw)), in_(kChunk) {  // NOLINT
    std::memset(&z_, 0, sizeof(z_));
    ok_ = inflateInit2(&z_, 15 + 32) == Z_OK;  // 32: accept gzip and zlib headers
  }
  ~GzipStream() override { inflateEnd(&z_); }
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  Result<size_t> Read(char* buf, size_t n) override {
    if (!ok_) return MakeError(path(), 0, 0, "cannot initialise gzip decoder");
    if (done_) return size_t{0};
    z_.next_out = reinterpret_cast<Bytef*>(buf);
    z_.avail_out = static_cast<uInt>(n);
    while (z_.avail_out == n) {
      if (z_.avail_in == 0) {
        auto got = raw_->Read(in_.data(), in_.size());
        if (!got.ok()) return got.error();
        if (*got == 0) {
          if (!stream_end_) {
            return MakeError(path(), 0, 0, "gzip stream ends early at byte " + std::to_string(raw_pos_),
                             "the file is truncated");
          }
          done_ = true;
          break;
        }
        z_.next_in = reinterpret_cast<Bytef*>(in_.data());
        z_.avail_in = static_cast<uInt>(*got);
      }
      if (stream_end_) {
        // After a member: another member (concatenated gzip), or NUL padding up to the end, which
        // gzip -d accepts too (tape and block devices pad that way).
        while (z_.avail_in > 0 && *z_.next_in == 0) {
          ++z_.next_in;
          --z_.avail_in;
          ++raw_pos_;
          padding_ = true;
        }
        if (z_.avail_in == 0) continue;
        if (padding_) {
          return MakeError(path(), 0, 0,
                           "byte " + std::to_string(raw_pos_) + ": data after the NUL padding that ends the gzip stream");
        }
        inflateReset(&z_);
        stream_end_ = false;
      }
      const uInt before = z_.avail_in;
      const int rc = inflate(&z_, Z_NO_FLUSH);
      raw_pos_ += static_cast<int64_t>(before - z_.avail_in);
      if (rc == Z_STREAM_END) {
        stream_end_ = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return MakeError(path(), 0, 0,
                         "corrupt gzip data near byte " + std::to_string(raw_pos_) + ": " + (z_.msg ? z_.msg : "?"));
      }
    }
    return n - z_.avail_out;
  }
  [[nodiscard]] const std::string& path() const override { return raw_->path(); }

 private:
  std::unique_ptr<FileStream> raw_;
  std::vector<char> in_;
  z_stream z_{};
  bool ok_ = false;
  bool stream_end_ = false;
  bool done_ = false;
  bool padding_ = false;  // NUL bytes seen after a member's end
  int64_t raw_pos_ = 0;   // compressed bytes consumed
};

class ZstdStream : public InputStream {
 public:
  explicit ZstdStream(std::unique_ptr<FileStream> raw)
      : raw_(std::move(raw)), in_(ZSTD_DStreamInSize()), ds_(ZSTD_createDStream()) {
    ZSTD_initDStream(ds_);
  }
  ~ZstdStream() override { ZSTD_freeDStream(ds_); }
  ZstdStream(const ZstdStream&) = delete;
  ZstdStream& operator=(const ZstdStream&) = delete;

  Result<size_t> Read(char* buf, size_t n) override {
    ZSTD_outBuffer out{buf, n, 0};
    while (out.pos == 0) {
      if (inb_.pos == inb_.size) {
        auto got = raw_->Read(in_.data(), in_.size());
        if (!got.ok()) return got.error();
        if (*got == 0) {
          if (last_ret_ != 0) return MakeError(path(), 0, 0, "zstd stream ends early", "the file is truncated");
          return size_t{0};
        }
        inb_ = ZSTD_inBuffer{in_.data(), *got, 0};
      }
      const size_t ret = ZSTD_decompressStream(ds_, &out, &inb_);
      if (ZSTD_isError(ret) != 0U) {
        return MakeError(path(), 0, 0, std::string("corrupt zstd data: ") + ZSTD_getErrorName(ret));
      }
      last_ret_ = ret;
    }
    return out.pos;
  }
  [[nodiscard]] const std::string& path() const override { return raw_->path(); }

 private:
  std::unique_ptr<FileStream> raw_;
  std::vector<char> in_;
  ZSTD_DStream* ds_;
  ZSTD_inBuffer inb_{nullptr, 0, 0};
  size_t last_ret_ = 0;
};

}  // namespace

Compression DetectCompression(std::string_view head) {
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
      static_cast<unsigned char>(head[1]) == 0x8b) {
    return Compression::kGzip;
  }
  if (head.size() >= 4 && static_cast<unsigned char>(head[0]) == 0x28 &&
      static_cast<unsigned char>(head[1]) == 0xb5 && static_cast<unsigned char>(head[2]) == 0x2f &&
      static_cast<unsigned char>(head[3]) == 0xfd) {
    return Compression::kZstd;
  }
  return Compression::kNone;
}

namespace {

// The copies of the pipes and FIFOs read so far: path -> descriptor of an unlinked temporary file.
struct SpoolTable {
  std::mutex mu;
  std::map<std::string, int> fds;
  SpoolTable() = default;
  SpoolTable(const SpoolTable&) = delete;
  SpoolTable& operator=(const SpoolTable&) = delete;
  ~SpoolTable() {
    for (const auto& [path, fd] : fds) ::close(fd);
  }
};

SpoolTable& Spools() {
  static SpoolTable table;
  return table;
}

std::string FdPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

// Opens a pipe or FIFO for reading without hanging on a FIFO that no writer opens: waits up to
// kFifoWriterWaitMs for data or a hang-up; then a writer that holds it open (read gives EAGAIN)
// is waited for, and none at all is an error. Returns the descriptor (blocking); a byte read while
// probing for the writer goes to `first`.
Result<int> OpenPipe(const std::string& path, std::string* first) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return MakeError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
  pollfd p{fd, POLLIN, 0};
  int rc = ::poll(&p, 1, kFifoWriterWaitMs);
  if (rc == 0) {
    char c = 0;
    const ssize_t n = ::read(fd, &c, 1);  // EAGAIN while a writer holds it open, 0 when none does
    if (n == 1) {
      first->push_back(c);
    } else if (n < 0 && errno == EAGAIN) {
      rc = ::poll(&p, 1, -1);
    } else {
      char link[64] = {0};
      const bool anonymous = ::readlink(FdPath(fd).c_str(), link, sizeof link - 1) > 0 &&
                             std::string_view(link).starts_with("pipe:");
      if (!anonymous) {
        ::close(fd);
        return MakeError(path, 0, 0,
                         "FIFO has no writer (waited " + std::to_string(kFifoWriterWaitMs / 1000) + " s)",
                         "start the program that writes it first, or pass the data through a pipe");
      }
    }
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (rc < 0 || flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    return MakeError(path, 0, 0, "cannot read: " + why);
  }
  return fd;
}

// Copies everything readable from `in` into an unlinked temporary file; returns its descriptor.
Result<int> SpoolToTemp(const std::string& path, int in, const std::string& first) {
  std::error_code ec;
  std::string name = (std::filesystem::temp_directory_path(ec) / "toposcope-spool-XXXXXX").string();
  if (ec) name = "/tmp/toposcope-spool-XXXXXX";
  const int out = ::mkstemp(name.data());
  if (out < 0) return MakeError(path, 0, 0, std::string("cannot create a temporary copy: ") + std::strerror(errno));
  ::unlink(name.c_str());
  std::vector<char> buf(kChunk);
  uint64_t total = first.size();
  if (!first.empty() && ::write(out, first.data(), first.size()) != static_cast<ssize_t>(first.size())) {
    ::close(out);
    return MakeError(path, 0, 0, "cannot write the temporary copy");
  }
  while (true) {
    const ssize_t n = ::read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = std::strerror(errno);
      ::close(out);
      return MakeError(path, 0, 0, "read failed at byte " + std::to_string(total) + ": " + why);
    }
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    if (total > kMaxSpoolBytes) {
      ::close(out);
      return MakeError(path, 0, 0, "pipe carries more than " + std::to_string(kMaxSpoolBytes >> 30) + " GiB",
                       "write it to a file and give the file");
    }
    if (::write(out, buf.data(), static_cast<size_t>(n)) != n) {
      const std::string why = std::strerror(errno);
      ::close(out);
      return MakeError(path, 0, 0, "cannot write the temporary copy: " + why);
    }
  }
  return out;
}

// The descriptor of the copy of a pipe, FIFO or standard input, made on the first call.
Result<int> SpooledCopy(const std::string& path) {
  SpoolTable& t = Spools();
  const std::lock_guard<std::mutex> lock(t.mu);
  if (auto it = t.fds.find(path); it != t.fds.end()) return it->second;
  int in = 0;
  std::string first;
  if (path != "-") {
    auto fd = OpenPipe(path, &first);
    if (!fd.ok()) return fd.error();
    in = *fd;
  }
  auto copy = SpoolToTemp(path, in, first);
  if (in != 0) ::close(in);
  if (!copy.ok()) return copy.error();
  t.fds.emplace(path, *copy);
  return *copy;
}

// Opens the file to read, or says why not: directories, sockets and devices are refused; pipes
// and FIFOs are read through their copy.
Result<FILE*> OpenRaw(const std::string& path) {
  struct stat st {};
  if (path != "-" && ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return MakeError(path, 0, 0, "is a directory, not a file");
    if (S_ISSOCK(st.st_mode)) return MakeError(path, 0, 0, "is a socket, not a file");
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return MakeError(path, 0, 0, "is a device, not a file");
  }
  std::string open_path = path;
  if (path == "-" || S_ISFIFO(st.st_mode)) {
    auto fd = SpooledCopy(path);
    if (!fd.ok()) return fd.error();
    open_path = FdPath(*fd);
  }
  FILE* f = std::fopen(open_path.c_str(), "rb");
  if (f == nullptr) {
    return MakeError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno),
                     "check the path and permissions");
  }
  return f;
}

}  // namespace

std::string ReadablePathOf(const std::string& path) {
  SpoolTable& t = Spools();
  const std::lock_guard<std::mutex> lock(t.mu);
  if (auto it = t.fds.find(path); it != t.fds.end()) return FdPath(it->second);
  return path;
}

Result<std::unique_ptr<InputStream>> OpenInput(const std::string& path) {
  auto f = OpenRaw(path);
  if (!f.ok()) return f.error();
  auto raw = std::make_unique<FileStream>(path, *f, true);
  std::string head(4, '\0');
  size_t got = 0;
  while (got < head.size()) {
    auto r = raw->Read(head.data() + got, head.size() - got);
    if (!r.ok()) return r.error();
    if (*r == 0) break;
    got += *r;
  }
  head.resize(got);
  const Compression c = DetectCompression(head);
  raw->Unread(std::move(head));
  switch (c) {
    case Compression::kGzip:
      return std::unique_ptr<InputStream>(std::make_unique<GzipStream>(std::move(raw)));
    case Compression::kZstd:
      return std::unique_ptr<InputStream>(std::make_unique<ZstdStream>(std::move(raw)));
    case Compression::kNone:
      break;
  }
  return std::unique_ptr<InputStream>(std::move(raw));
}

Result<std::string> ReadFileText(const std::string& path, size_t max_bytes) {
  auto in = OpenInput(path);
  if (!in.ok()) return in.error();
  std::string out;
  std::vector<char> buf(kChunk);
  while (true) {
    auto got = (*in)->Read(buf.data(), buf.size());
    if (!got.ok()) return got.error();
    if (*got == 0) break;
    if (*got > max_bytes - out.size()) {  // checked before the buffer grows
      return MakeError(path, 0, 0, "input too large: more than " + std::to_string(max_bytes >> 20) +
                                       " MiB once decompressed (" + std::to_string(max_bytes) + " bytes)",
                       "a file of this format is far smaller; is it a decompression bomb or the wrong file?");
    }
    out.append(buf.data(), *got);
  }
  return out;
}

Result<std::string> ReadHead(const std::string& path, size_t n) {
  auto in = OpenInput(path);
  if (!in.ok()) return in.error();
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    auto r = (*in)->Read(out.data() + got, n - got);
    if (!r.ok()) {
      if (got > 0) break;  // a corrupt tail still leaves a usable head
      return r.error();
    }
    if (*r == 0) break;
    got += *r;
  }
  out.resize(got);
  return out;
}

bool LineReader::Fill() {
  if (eof_ || failed_) return false;
  if (pos_ > 0) {
    buf_.erase(0, pos_);
    scan_ -= pos_;
    pos_ = 0;
  }
  const size_t old = buf_.size();
  const size_t want = in_->ReadSizeHint(kChunk);
  buf_.resize(old + want);
  auto got = in_->Read(buf_.data() + old, want);
  if (!got.ok()) {
    buf_.resize(old);
    failed_ = true;
    error_ = got.error();
    return false;
  }
  buf_.resize(old + *got);
  if (*got == 0) eof_ = true;
  return *got > 0;
}

// Closes the line past the cap that ends at buf_[end] (a '\n' when `newline`).
void LineReader::EndOversized(size_t end, bool newline) {
  const int64_t start = discarding_ ? discard_start_ : consumed_;
  const int64_t bytes = discarded_ + static_cast<int64_t>(end - pos_);
  ++line_no_;
  oversized_.push_back({line_no_, start, bytes});
  consumed_ += static_cast<int64_t>(end - pos_) + (newline ? 1 : 0);
  pos_ = scan_ = newline ? end + 1 : end;
  discarding_ = false;
  discarded_ = 0;
}

bool LineReader::Next(std::string_view* line) {
  while (true) {
    const size_t nl = buf_.find('\n', scan_);
    if (nl != std::string::npos) {
      if (discarding_ || nl - pos_ > max_line_) {
        EndOversized(nl, true);
        continue;
      }
      size_t end = nl;
      if (end > pos_ && buf_[end - 1] == '\r') --end;
      // A view into the buffer: valid until the next call, which alone moves the buffer.
      *line = std::string_view(buf_).substr(pos_, end - pos_);
      line_start_offset_ = consumed_;
      consumed_ += static_cast<int64_t>(nl + 1 - pos_);
      pos_ = scan_ = nl + 1;
      ++line_no_;
      return true;
    }
    scan_ = buf_.size();  // no '\n' before the end of the buffer: never rescanned
    if (discarding_ || scan_ - pos_ > max_line_) {
      if (!discarding_) {
        discarding_ = true;
        discard_start_ = consumed_;
        discarded_ = 0;
      }
      discarded_ += static_cast<int64_t>(scan_ - pos_);
      consumed_ += static_cast<int64_t>(scan_ - pos_);
      pos_ = scan_;
    }
    if (!Fill()) {
      if (discarding_) {
        EndOversized(buf_.size(), false);
        return false;
      }
      if (pos_ < buf_.size()) {
        size_t end = buf_.size();
        if (buf_[end - 1] == '\r') --end;
        *line = std::string_view(buf_).substr(pos_, end - pos_);
        line_start_offset_ = consumed_;
        consumed_ += static_cast<int64_t>(buf_.size() - pos_);
        pos_ = scan_ = buf_.size();
        ++line_no_;
        return true;
      }
      return false;
    }
  }
}

int64_t RejectOversizedLines(LineReader& lines, Diagnostics& diag, ReadCounts& counts) {
  const std::vector<OversizedLine> skipped = lines.TakeOversized();
  for (const OversizedLine& o : skipped) {
    ++counts.read;
    ++counts.rejected;
    diag.Reject(lines.path(), o.line, "",
                "line of " + std::to_string(o.bytes) + " bytes (from byte " + std::to_string(o.byte_offset) +
                    ") is longer than the line limit of " + std::to_string(lines.max_line_bytes()) +
                    " bytes; skipped, reading goes on after it");
  }
  return static_cast<int64_t>(skipped.size());
}

Status WriteFileText(const std::string& path, std::string_view text) {
  std::error_code ec;
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    return WithKind(MakeError(path, 0, 0, std::string("cannot write: ") + std::strerror(errno)), ErrorKind::kOutput);
  }
  const size_t n = std::fwrite(text.data(), 1, text.size(), f);
  const int rc = std::fclose(f);
  if (n != text.size() || rc != 0) {
    return WithKind(MakeError(path, 0, 0, "write failed", "disk full?"), ErrorKind::kOutput);
  }
  return {};
}

Status PrepareOutputDir(const std::string& dir) {
  namespace fs = std::filesystem;
  auto fail = [&dir](const std::string& why, const std::string& hint) {
    return MakeKindError(ErrorKind::kOutput, "cannot write to " + dir + ": " + why, hint);
  };
  std::error_code ec;
  const fs::path p(dir);
  // The deepest part of the path that exists must be a directory.
  for (fs::path up = p; !up.empty(); up = up.parent_path()) {
    const fs::file_status st = fs::status(up, ec);
    if (st.type() == fs::file_type::not_found) {
      if (up == up.parent_path()) break;
      continue;
    }
    if (st.type() != fs::file_type::directory) {
      return fail(up == p ? "it is a file, not a directory" : up.string() + " is a file, not a directory",
                  "give a directory; a missing one is created");
    }
    break;
  }
  fs::create_directories(p, ec);
  if (ec) return fail("cannot create the directory: " + ec.message(), "check the path and its permissions");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return fail(std::string("the directory is not writable: ") + std::strerror(errno),
                "choose a directory you can write into");
  }
  return {};
}

}  // namespace toposcope
