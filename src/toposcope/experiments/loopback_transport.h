// experiments/loopback_transport: what the real runs on one machine share (the cross-region
// barrier's training, experiments/barrier_training; the parameter-server graph's, experiments/
// ps_training): one process per node (fork), each with a ZeroMQ PULL socket on TCP loopback and a
// PUSH socket to every peer; a frame carries the time at which the receiver may hand it over (the
// sender's model of the link: serialisation and latency), on the monotonic clock that the
// processes of one machine share; the receiver holds it until then. Also the pipes between the
// parent and its processes: ports out and back, a result as length-prefixed text.
#pragma once

#include <sys/types.h>
#include <zmq.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <queue>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "toposcope/base/result.h"

namespace toposcope::experiments {

// The shared monotonic clock, ns.
int64_t NowNs();

// type u8 | from u32 | step u64 | arrival_ns i64 | body.
inline constexpr size_t kFrameHeader = 21;
struct Frame {
  uint8_t type = 0;
  int from = 0;
  uint64_t step = 0;
  int64_t arrival_ns = 0;
  std::vector<uint8_t> body;
};

class LoopbackTransport {
 public:
  // Binds the PULL socket on a free loopback port. linger_ms: how long closing waits to deliver.
  explicit LoopbackTransport(int self, int linger_ms = 2000);
  int Port();
  // A PUSH socket to every peer (ports[self] is not connected).
  void Connect(const std::vector<int>& ports);
  // Sends a frame the receiver hands over at arrival_ns; flip_at >= 0 corrupts that body byte on
  // the wire. Returns the frame's size. A peer closed with Close gets nothing.
  size_t SendAt(int peer, uint8_t type, uint64_t step, std::span<const uint8_t> body, int64_t arrival_ns,
                int flip_at = -1);
  // No more frames to `peer`; those still queued for it are dropped.
  void Close(int peer);
  // Hands every frame whose arrival time has come to `handle`, then waits at most max_wait_ns for
  // the next one to come due or arrive.
  template <class Handle>
  void Poll(Handle handle, int64_t max_wait_ns) {
    HandOverDue(handle, [] { return false; });
    Wait(max_wait_ns);
  }
  // Hands frames over as they come due until `done()`; fails (kInternal) after timeout_s.
  template <class Done, class Handle>
  Status Pump(Done done, Handle handle, double timeout_s) {
    const int64_t deadline = NowNs() + static_cast<int64_t>(timeout_s * 1e9);
    while (!done()) {
      const int64_t now = HandOverDue(handle, done);
      if (done()) return {};
      if (now > deadline) return MakeKindError(ErrorKind::kInternal, "node " + std::to_string(self_) + " timed out");
      Wait(1000000);
    }
    return {};
  }
  int64_t last_arrival_ns = 0;  // of the last frame handed over

 private:
  struct Later {
    bool operator()(const Frame& a, const Frame& b) const { return a.arrival_ns > b.arrival_ns; }
  };
  void Receive();
  void Wait(int64_t max_wait_ns);
  // Receives, then hands every frame whose arrival time has come to `handle`, stopping early once
  // `stop()`. Returns the time it compared the arrivals with.
  template <class Handle, class Stop>
  int64_t HandOverDue(Handle& handle, const Stop& stop) {
    Receive();
    const int64_t now = NowNs();
    while (!due_.empty() && due_.top().arrival_ns <= now) {
      Frame f = due_.top();
      due_.pop();
      last_arrival_ns = f.arrival_ns;
      handle(f);
      if (stop()) break;
    }
    return now;
  }

  int self_;
  int linger_ms_;
  zmq::context_t ctx_;
  zmq::socket_t pull_;
  std::vector<zmq::socket_t> push_;
  std::priority_queue<Frame, std::vector<Frame>, Later> due_;
};

bool ReadAll(int fd, void* data, size_t n);
bool WriteAll(int fd, const void* data, size_t n);

// The parent's side of `n` forked processes: child i got (i, up_fd, down_fd) and reports on up.
struct ForkedProcesses {
  std::vector<pid_t> pids;
  std::vector<int> up, down;  // the parent's ends
};
// Forks n processes, each running `child(self, up_fd, down_fd)`, which must not return (it ends
// with _exit). Fails (kInternal) when a pipe or a fork fails.
Result<ForkedProcesses> ForkProcesses(int n, const std::function<void(int, int, int)>& child);
// The parent: reads each process's port, then sends every process the list. False on a pipe error.
bool ExchangePorts(const ForkedProcesses& f);
// A process: reports its port, reads every port.
bool ReportPort(int up_fd, int down_fd, int port, int n, std::vector<int>& ports);
// A process's handshake once connected: `send_hello(peer)` sends a frame of type `hello` to each of
// the other n - 1 processes, then `link.Pump` hands frames over until a hello has come from each
// (every connection is up before the run); the other frames that come meanwhile (a faster peer's
// first ones) are appended to `early`. Fails as Pump does, after timeout_s.
template <class Link, class SendHello>
Status ExchangeHellos(Link& link, SendHello send_hello, uint8_t hello, int self, int n, double timeout_s,
                      std::vector<Frame>& early) {
  for (int p = 0; p < n; ++p) {
    if (p != self) send_hello(p);
  }
  int hellos = 1;
  return link.Pump([&] { return hellos == n; },
                   [&](const Frame& f) {
                     if (f.type == hello)
                       ++hellos;
                     else
                       early.push_back(f);
                   },
                   timeout_s);
}
// A length-prefixed text over a pipe (the result of a process).
bool WriteText(int fd, const std::string& text);
// "" when the process ended without one.
std::string ReadText(int fd);
// Closes the parent's ends and reaps every process.
void ReapProcesses(ForkedProcesses& f);

}  // namespace toposcope::experiments
