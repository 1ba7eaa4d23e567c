// serve/http_listen: what the HTTP servers of serve/ (server, exporter_server) share around
// cpp-httplib's listening: binding the socket, serving on the caller's thread with a second thread
// beside it, and a stop that may be asked for from any thread while httplib's stop() is called from
// that second thread alone, once, while the server runs.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>

#include "toposcope/base/result.h"

namespace httplib {
class Server;
}

namespace toposcope::serve {

class HttpListener {
 public:
  // What the second thread does after AwaitStop: its own work, nothing this turn, or end.
  enum class Turn { kWork, kWait, kEnd };

  // Binds `http` to host:port (port 0: any free port); returns the port bound. Fails (kUsage) when
  // the address cannot be bound.
  Result<int> Bind(httplib::Server& http, const std::string& host, int port);
  // Serves `http` on this thread until it stops, running `beside` on a thread of its own (it must
  // loop on AwaitStop until kEnd); once serving ends, asks for a stop and joins that thread.
  // Fails (kInternal) before Bind ("<name>: Run before Bind") or when serving stopped on an error.
  Status Run(httplib::Server& http, const std::string& name, const std::function<void()>& beside);
  // Asks Run to stop, from any thread; idempotent.
  void Stop();
  // For the thread beside: waits up to 100 ms for a stop to be asked. kWork: none was; kWait: one
  // was but the server does not run yet; kEnd: serving ended, or the stop was handed to `http`.
  Turn AwaitStop(httplib::Server& http);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_requested_ = false;
  bool listen_done_ = false;  // listen_after_bind returned (nothing left to stop)
  bool bound_ = false;
};

}  // namespace toposcope::serve
