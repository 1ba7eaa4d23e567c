#include "toposcope/base/file_io.h"

#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
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
          if (!stream_end_) return MakeError(path(), 0, 0, "gzip stream ends early", "the file is truncated");
          done_ = true;
          break;
        }
        z_.next_in = reinterpret_cast<Bytef*>(in_.data());
        z_.avail_in = static_cast<uInt>(*got);
      }
      if (stream_end_) {
        // Concatenated gzip members: start the next one.
        inflateReset(&z_);
        stream_end_ = false;
      }
      const int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        stream_end_ = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return MakeError(path(), 0, 0, std::string("corrupt gzip data: ") + (z_.msg ? z_.msg : "?"));
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

Result<std::unique_ptr<InputStream>> OpenInput(const std::string& path) {
  FILE* f = nullptr;
  bool owned = true;
  if (path == "-") {
    f = stdin;
    owned = false;
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      return MakeError(path, 0, 0, "is a directory, not a file");
    }
    f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
      return MakeError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno),
                       "check the path and permissions");
    }
  }
  auto raw = std::make_unique<FileStream>(path, f, owned);
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
    out.append(buf.data(), *got);
    if (out.size() > max_bytes) {
      return MakeError(path, 0, 0, "input too large", "more than " + std::to_string(max_bytes) + " bytes");
    }
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
    pos_ = 0;
  }
  const size_t old = buf_.size();
  buf_.resize(old + kChunk);
  auto got = in_->Read(buf_.data() + old, kChunk);
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

bool LineReader::Next(std::string_view* line) {
  while (true) {
    const size_t nl = buf_.find('\n', pos_);
    if (nl != std::string::npos) {
      size_t end = nl;
      if (end > pos_ && buf_[end - 1] == '\r') --end;
      line_.assign(buf_, pos_, end - pos_);
      line_start_offset_ = consumed_;
      consumed_ += static_cast<int64_t>(nl + 1 - pos_);
      pos_ = nl + 1;
      ++line_no_;
      *line = line_;
      return true;
    }
    if (!Fill()) {
      if (pos_ < buf_.size()) {
        size_t end = buf_.size();
        if (buf_[end - 1] == '\r') --end;
        line_.assign(buf_, pos_, end - pos_);
        line_start_offset_ = consumed_;
        consumed_ += static_cast<int64_t>(buf_.size() - pos_);
        pos_ = buf_.size();
        ++line_no_;
        *line = line_;
        return true;
      }
      return false;
    }
  }
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

}  // namespace toposcope
