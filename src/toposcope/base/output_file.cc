// base/output_file: an output file written piece by piece, plain or zstd-compressed (see the header).
#include "toposcope/base/output_file.h"

#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace toposcope {
namespace {

Error OutputError(const std::string& path, const std::string& why, const std::string& hint = {}) {
  return WithKind(MakeError(path, 0, 0, why, hint), ErrorKind::kOutput);
}

}  // namespace

Result<std::unique_ptr<OutputFile>> OutputFile::Create(const std::string& path, OutputCompression compression,
                                                       int zstd_level) {
  std::error_code ec;
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  std::unique_ptr<OutputFile> f(new OutputFile());
  f->path_ = path;
  f->file_ = std::fopen(path.c_str(), "wb");
  if (f->file_ == nullptr) return OutputError(path, std::string("cannot write: ") + std::strerror(errno));
  if (compression == OutputCompression::kZstd) {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    if (cctx == nullptr) return OutputError(path, "cannot start zstd compression (out of memory?)");
    f->zstd_ = cctx;
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, zstd_level);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    f->zbuf_.resize(ZSTD_CStreamOutSize());
  }
  return f;
}

OutputFile::~OutputFile() {
  if (file_ != nullptr) (void)Close();
  if (zstd_ != nullptr) ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(zstd_));
}

Status OutputFile::WriteRaw(const void* data, size_t n) {
  if (n == 0) return {};
  if (std::fwrite(data, 1, n, file_) != n) return OutputError(path_, "write failed", "disk full?");
  bytes_out_ += static_cast<int64_t>(n);
  return {};
}

Status OutputFile::Compress(std::string_view text, bool end) {
  auto* cctx = static_cast<ZSTD_CCtx*>(zstd_);
  ZSTD_inBuffer in{text.data(), text.size(), 0};
  for (;;) {
    ZSTD_outBuffer out{zbuf_.data(), zbuf_.size(), 0};
    const size_t left = ZSTD_compressStream2(cctx, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
    if (ZSTD_isError(left) != 0U) return OutputError(path_, std::string("zstd: ") + ZSTD_getErrorName(left));
    if (Status st = WriteRaw(zbuf_.data(), out.pos); !st) return st;
    if (end ? left == 0 : in.pos == in.size) return {};
  }
}

Status OutputFile::Append(std::string_view text) {
  if (file_ == nullptr) return OutputError(path_, "write after close");
  bytes_in_ += static_cast<int64_t>(text.size());
  if (zstd_ != nullptr) return Compress(text, false);
  return WriteRaw(text.data(), text.size());
}

Status OutputFile::Close() {
  if (file_ == nullptr) return {};
  Status st;
  if (zstd_ != nullptr) st = Compress({}, true);
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (!st) return st;
  if (rc != 0) return OutputError(path_, "write failed", "disk full?");
  return {};
}

Status FileSink::File(const std::string& name, std::string_view text) {
  if (Status st = Begin(name); !st.ok()) return st;
  if (Status st = Append(text); !st.ok()) return st;
  return End();
}

}  // namespace toposcope
