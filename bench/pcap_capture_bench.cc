// RoCEv2 capture throughput: frame decode and encode in memory, and ReadCapture over a generated
// classic-pcap capture (RC WRITE messages at MTU 1024 split into FIRST/MIDDLE/LAST, coalesced ACKs,
// READ requests/responses, UD sends, CNPs; IPv4, one VLAN) written to /tmp in the setup.
// Reports packets/s (items_per_second) and MB/s of capture (bytes_per_second).
//
// Extra modes (no benchmarks run):
//   --write-capture=PATH [--packets=N]   write the generated capture (default 100000 packets)
//   --capture=PATH [--check-icrc]        read a capture once and print records, RoCE packets, seconds,
//                                        packets/s and MB/s (used by bench/tshark_compare.sh)
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/formats/rdma/pcap_capture.h"

namespace toposcope::formats {
namespace {

const uint8_t kMacA[6] = {0x02, 0, 0, 0, 0, 1};
const uint8_t kMacB[6] = {0x02, 0, 0, 0, 0, 2};

// Generated traffic: `packets` frames over 64 RC connections plus some UD and CNP.
bool WriteCapture(const std::string& path, int64_t packets) {
  auto w = PcapWriter::Open(path);
  if (!w.ok()) {
    std::fprintf(stderr, "%s\n", w.error().ToString().c_str());
    return false;
  }
  std::mt19937_64 rng(99);
  struct Qp {
    uint32_t qpn, peer_qpn, psn;
    IpAddress a, b;
    uint16_t sport;
  };
  std::vector<Qp> qps;
  for (uint32_t i = 0; i < 64; ++i) {
    qps.push_back({0x100 + i, 0x200 + i, static_cast<uint32_t>(rng() & 0xffffff),
                   IpAddress::V4(0x0a000001u + i), IpAddress::V4(0x0a010001u + i),
                   static_cast<uint16_t>(0xc000 | (rng() & 0x3fff))});
  }
  int64_t ts = 1700000000000000000;
  int64_t n = 0;
  auto emit = [&](const RocePacket& p, bool forward) {
    ts += 300 + static_cast<int64_t>(rng() % 400);
    const auto f = EncodeRoceFrame(p, forward ? kMacA : kMacB, forward ? kMacB : kMacA);
    return w->Write(ts, f).ok() && ++n > 0;
  };
  while (n < packets) {
    Qp& q = qps[rng() % qps.size()];
    RocePacket p;
    p.vlan_ids = {100};
    p.ip_dscp = 26;
    p.ip_ecn = 2;
    p.pkey = 0xffff;
    p.udp_src_port = q.sport;
    const int kind = static_cast<int>(rng() % 100);
    if (kind < 80) {  // RDMA WRITE of 1-16 KiB at MTU 1024, then an ACK
      const int segs = 1 + static_cast<int>(rng() % 16);
      for (int s = 0; s < segs && n < packets; ++s) {
        p.src_ip = q.a;
        p.dst_ip = q.b;
        p.dest_qp = q.peer_qpn;
        p.opcode = segs == 1       ? roce_op::kWriteOnly
                   : s == 0        ? roce_op::kWriteFirst
                   : s + 1 == segs ? roce_op::kWriteLast
                                   : roce_op::kWriteMiddle;
        p.reth_va = 0x7f0000000000ULL;
        p.reth_rkey = 0x1234;
        p.reth_dma_len = static_cast<uint32_t>(segs * 1024);
        p.payload_bytes = 1024;
        p.ack_req = s + 1 == segs;
        p.psn = q.psn;
        q.psn = (q.psn + 1) & 0xffffff;
        if (!emit(p, true)) return false;
      }
      RocePacket ack = p;
      ack.src_ip = q.b;
      ack.dst_ip = q.a;
      ack.dest_qp = q.qpn;
      ack.opcode = roce_op::kAcknowledge;
      ack.payload_bytes = 0;
      ack.ack_req = false;
      ack.aeth_syndrome = 0x1f;
      ack.aeth_msn = q.psn & 0xffff;
      if (n < packets && !emit(ack, false)) return false;
    } else if (kind < 92) {  // READ request + response only
      p.src_ip = q.a;
      p.dst_ip = q.b;
      p.dest_qp = q.peer_qpn;
      p.opcode = roce_op::kReadRequest;
      p.reth_dma_len = 512;
      p.psn = q.psn;
      if (!emit(p, true)) return false;
      RocePacket r = p;
      r.src_ip = q.b;
      r.dst_ip = q.a;
      r.dest_qp = q.qpn;
      r.opcode = roce_op::kReadResponseOnly;
      r.payload_bytes = 512;
      r.aeth_syndrome = 0x1f;
      if (n < packets && !emit(r, false)) return false;
      q.psn = (q.psn + 1) & 0xffffff;
    } else if (kind < 98) {  // UD send
      p.src_ip = q.a;
      p.dst_ip = q.b;
      p.opcode = 0x64;
      p.dest_qp = 0x300 + (q.qpn & 0xff);  // not QP1 (GSI): Wireshark would parse a MAD
      p.deth_qkey = 0x80010000;
      p.deth_src_qp = q.qpn;
      p.payload_bytes = 256;
      if (!emit(p, true)) return false;
    } else {  // CNP back to the sender
      p.src_ip = q.b;
      p.dst_ip = q.a;
      p.opcode = roce_op::kCnp;
      p.dest_qp = q.qpn;
      p.becn = true;
      if (!emit(p, false)) return false;
    }
  }
  return w->Close().ok();
}

const std::string& BenchCapture() {
  static const std::string path = [] {
    const std::string p = (std::filesystem::temp_directory_path() /
                           ("toposcope_pcap_bench_" + std::to_string(::getpid()) + ".pcap"))
                              .string();
    if (!WriteCapture(p, 100000)) std::fprintf(stderr, "cannot write %s\n", p.c_str());
    return p;
  }();
  return path;
}

void BM_ReadCapture(benchmark::State& state) {
  const std::string& path = BenchCapture();
  const auto file_bytes = static_cast<int64_t>(std::filesystem::file_size(path));
  const bool icrc = state.range(0) != 0;
  int64_t packets = 0;
  for (auto _ : state) {
    Diagnostics diag;
    uint64_t qp_sum = 0;
    auto s = ReadCapture(path, [&](const RocePacket& p) { qp_sum += p.dest_qp + p.psn; }, diag,
                         {.check_icrc = icrc});
    if (!s.ok() || s->malformed != 0 || s->icrc_bad != 0) state.SkipWithError("read failed");
    packets = s.ok() ? s->records : 0;
    benchmark::DoNotOptimize(qp_sum);
  }
  state.SetItemsProcessed(state.iterations() * packets);
  state.SetBytesProcessed(state.iterations() * file_bytes);
}
BENCHMARK(BM_ReadCapture)->Arg(0)->Arg(1)->ArgName("check_icrc")->Unit(benchmark::kMillisecond);

RocePacket SamplePacket() {
  RocePacket p;
  p.src_ip = IpAddress::V4(0x0a000001u);
  p.dst_ip = IpAddress::V4(0x0a000002u);
  p.vlan_ids = {100};
  p.udp_src_port = 0xc123;
  p.opcode = roce_op::kWriteFirst;
  p.dest_qp = 0x123;
  p.psn = 77;
  p.payload_bytes = 1024;
  return p;
}

void BM_DecodeFrame(benchmark::State& state) {
  const auto f = EncodeRoceFrame(SamplePacket(), kMacA, kMacB);
  const bool icrc = state.range(0) != 0;
  RocePacket p;
  for (auto _ : state) {
    auto d = DecodeRoceFrame(f, static_cast<uint32_t>(f.size()), kDltEn10Mb, icrc, &p);
    benchmark::DoNotOptimize(d);
    benchmark::DoNotOptimize(p.psn);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(f.size()));
}
BENCHMARK(BM_DecodeFrame)->Arg(0)->Arg(1)->ArgName("check_icrc");

void BM_EncodeFrame(benchmark::State& state) {
  const RocePacket p = SamplePacket();
  for (auto _ : state) {
    auto f = EncodeRoceFrame(p, kMacA, kMacB);
    benchmark::DoNotOptimize(f.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EncodeFrame);

int ReadOnce(const std::string& path, bool icrc) {
  const auto t0 = std::chrono::steady_clock::now();
  Diagnostics diag;
  uint64_t qp_sum = 0;
  auto s = ReadCapture(path, [&](const RocePacket& p) { qp_sum += p.dest_qp + p.psn + p.opcode; }, diag,
                       {.check_icrc = icrc});
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.error().ToString().c_str());
    return 1;
  }
  const double mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::printf(
      "records %lld roce %lld not_roce %lld malformed %lld seconds %.4f packets_per_s %.0f MB_per_s %.1f "
      "checksum %llu\n",
      static_cast<long long>(s->records), static_cast<long long>(s->roce),
      static_cast<long long>(s->not_roce), static_cast<long long>(s->malformed), secs,
      static_cast<double>(s->records) / secs, mb / secs, static_cast<unsigned long long>(qp_sum));
  return 0;
}

}  // namespace
}  // namespace toposcope::formats

int main(int argc, char** argv) {
  using namespace toposcope::formats;
  std::string capture, write_to;
  int64_t packets = 100000;
  bool icrc = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a(argv[i]);
    auto value = [&](std::string_view flag, std::string* out) {
      if (a.substr(0, flag.size() + 1) == std::string(flag) + "=") {
        *out = std::string(a.substr(flag.size() + 1));
        return true;
      }
      if (a == flag && i + 1 < argc) {
        *out = argv[++i];
        return true;
      }
      return false;
    };
    std::string v;
    if (value("--capture", &v)) {
      capture = v;
    } else if (value("--write-capture", &v)) {
      write_to = v;
    } else if (value("--packets", &v)) {
      packets = std::stoll(v);
    } else if (a == "--check-icrc") {
      icrc = true;
    }
  }
  if (!write_to.empty()) return WriteCapture(write_to, packets) ? 0 : 1;
  if (!capture.empty()) return ReadOnce(capture, icrc);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ec;
  std::filesystem::remove(BenchCapture(), ec);
  return 0;
}
