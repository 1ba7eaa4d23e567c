// serve/http_listen: see the header.
#include "toposcope/serve/http_listen.h"

#include <httplib.h>

#include <chrono>
#include <thread>

namespace toposcope::serve {

Result<int> HttpListener::Bind(httplib::Server& http, const std::string& host, int port) {
  int bound_port = port;
  if (port == 0) {
    bound_port = http.bind_to_any_port(host);
    if (bound_port < 0) bound_port = 0;
  } else if (!http.bind_to_port(host, port)) {
    bound_port = 0;
  }
  if (bound_port <= 0) {
    return MakeKindError(ErrorKind::kUsage, "cannot listen on " + host + ":" + std::to_string(port),
                         "the port may be in use, or the address not this machine's; try another --listen");
  }
  bound_ = true;
  return bound_port;
}

Status HttpListener::Run(httplib::Server& http, const std::string& name, const std::function<void()>& beside) {
  if (!bound_) return MakeKindError(ErrorKind::kInternal, name + ": Run before Bind");
  std::thread thread(beside);
  const bool ok = http.listen_after_bind();
  {
    std::lock_guard<std::mutex> lock(mu_);
    listen_done_ = true;
  }
  Stop();
  thread.join();
  if (!ok) return MakeKindError(ErrorKind::kInternal, "the HTTP server stopped on an error");
  return {};
}

void HttpListener::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_requested_ = true;
  }
  cv_.notify_all();
}

HttpListener::Turn HttpListener::AwaitStop(httplib::Server& http) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_requested_ || listen_done_; });
  if (listen_done_) return Turn::kEnd;
  if (!stop_requested_) return Turn::kWork;
  if (!http.is_running()) {  // asked before serving began: look again shortly
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return Turn::kWait;
  }
  http.stop();
  return Turn::kEnd;
}

}  // namespace toposcope::serve
