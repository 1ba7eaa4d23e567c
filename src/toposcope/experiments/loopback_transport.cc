// experiments/loopback_transport: see the header.
#include "toposcope/experiments/loopback_transport.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace toposcope::experiments {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

LoopbackTransport::LoopbackTransport(int self, int linger_ms)
    : self_(self), linger_ms_(linger_ms), pull_(ctx_, zmq::socket_type::pull) {
  pull_.set(zmq::sockopt::rcvhwm, 0);
  pull_.bind("tcp://127.0.0.1:*");
}

int LoopbackTransport::Port() {
  const std::string ep = pull_.get(zmq::sockopt::last_endpoint);
  return std::stoi(ep.substr(ep.rfind(':') + 1));
}

void LoopbackTransport::Connect(const std::vector<int>& ports) {
  for (size_t p = 0; p < ports.size(); ++p) {
    push_.emplace_back(ctx_, zmq::socket_type::push);
    push_.back().set(zmq::sockopt::sndhwm, 0);
    push_.back().set(zmq::sockopt::linger, linger_ms_);
    if (static_cast<int>(p) != self_) push_.back().connect(fmt::format("tcp://127.0.0.1:{}", ports[p]));
  }
}

size_t LoopbackTransport::SendAt(int peer, uint8_t type, uint64_t step, std::span<const uint8_t> body,
                                 int64_t arrival_ns, int flip_at) {
  const size_t size = kFrameHeader + body.size();
  zmq::socket_t& s = push_[static_cast<size_t>(peer)];
  if (!s) return size;
  zmq::message_t m(size);
  auto* p = static_cast<uint8_t*>(m.data());
  p[0] = type;
  const auto from = static_cast<uint32_t>(self_);
  std::memcpy(p + 1, &from, 4);
  std::memcpy(p + 5, &step, 8);
  std::memcpy(p + 13, &arrival_ns, 8);
  if (!body.empty()) std::memcpy(p + kFrameHeader, body.data(), body.size());
  if (flip_at >= 0 && static_cast<size_t>(flip_at) < body.size()) p[kFrameHeader + static_cast<size_t>(flip_at)] ^= 0x11;
  s.send(m, zmq::send_flags::none);
  return size;
}

void LoopbackTransport::Close(int peer) {
  zmq::socket_t& s = push_[static_cast<size_t>(peer)];
  if (!s) return;
  s.set(zmq::sockopt::linger, 0);
  s.close();
}

void LoopbackTransport::Receive() {
  zmq::message_t m;
  while (pull_.recv(m, zmq::recv_flags::dontwait)) {
    if (m.size() < kFrameHeader) continue;
    const auto* p = static_cast<const uint8_t*>(m.data());
    Frame f;
    f.type = p[0];
    uint32_t from = 0;
    std::memcpy(&from, p + 1, 4);
    f.from = static_cast<int>(from);
    std::memcpy(&f.step, p + 5, 8);
    std::memcpy(&f.arrival_ns, p + 13, 8);
    f.body.assign(p + kFrameHeader, p + m.size());
    due_.push(std::move(f));
  }
}

void LoopbackTransport::Wait(int64_t max_wait_ns) {
  if (max_wait_ns <= 0) return;
  if (!due_.empty()) {
    const int64_t wait_ns = std::min<int64_t>({due_.top().arrival_ns - NowNs(), 50000, max_wait_ns});
    if (wait_ns > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(wait_ns));
  } else {
    zmq::pollitem_t item{pull_.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::milliseconds(std::max<int64_t>(1, max_wait_ns / 1000000)));
  }
}

bool ReadAll(int fd, void* data, size_t n) {
  auto* p = static_cast<uint8_t*>(data);
  while (n > 0) {
    const ssize_t r = read(fd, p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool WriteAll(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    const ssize_t r = write(fd, p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

Result<ForkedProcesses> ForkProcesses(int n, const std::function<void(int, int, int)>& child) {
  ForkedProcesses f;
  for (int w = 0; w < n; ++w) {
    int a[2], b[2];
    if (pipe(a) != 0) return MakeKindError(ErrorKind::kInternal, "pipe failed");
    if (pipe(b) != 0) {
      close(a[0]);
      close(a[1]);
      return MakeKindError(ErrorKind::kInternal, "pipe failed");
    }
    const pid_t pid = fork();
    if (pid < 0) return MakeKindError(ErrorKind::kInternal, "fork failed");
    if (pid == 0) {
      close(a[0]);
      close(b[1]);
      child(w, a[1], b[0]);
      _exit(3);
    }
    close(a[1]);
    close(b[0]);
    f.up.push_back(a[0]);
    f.down.push_back(b[1]);
    f.pids.push_back(pid);
  }
  return f;
}

bool ExchangePorts(const ForkedProcesses& f) {
  std::vector<int> ports(f.up.size());
  for (size_t w = 0; w < f.up.size(); ++w) {
    if (!ReadAll(f.up[w], &ports[w], sizeof(int))) return false;
  }
  for (size_t w = 0; w < f.down.size(); ++w) {
    if (!WriteAll(f.down[w], ports.data(), ports.size() * sizeof(int))) return false;
  }
  return true;
}

bool ReportPort(int up_fd, int down_fd, int port, int n, std::vector<int>& ports) {
  ports.assign(static_cast<size_t>(n), 0);
  return WriteAll(up_fd, &port, sizeof port) && ReadAll(down_fd, ports.data(), ports.size() * sizeof(int));
}

bool WriteText(int fd, const std::string& text) {
  const uint64_t n = text.size();
  return WriteAll(fd, &n, sizeof n) && WriteAll(fd, text.data(), text.size());
}

std::string ReadText(int fd) {
  uint64_t n = 0;
  std::string text;
  if (ReadAll(fd, &n, sizeof n) && n < (1ULL << 31)) {
    text.resize(n);
    if (!ReadAll(fd, text.data(), n)) text.clear();
  }
  return text;
}

void ReapProcesses(ForkedProcesses& f) {
  for (int fd : f.up) close(fd);
  for (int fd : f.down) close(fd);
  f.up.clear();
  f.down.clear();
  for (pid_t pid : f.pids) {
    int status = 0;
    waitpid(pid, &status, 0);
  }
  f.pids.clear();
}

}  // namespace toposcope::experiments
