// TCP sockets on the loopback interface, the stand-in HCCL's transport
// between the processes of one machine. Every blocking step takes a Deadline;
// a peer whose process exits closes its sockets, which the other side sees at
// once as an error naming that peer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "hccl_error.h"

namespace npu::standin::hccl {

class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  Socket(Socket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Socket& operator=(Socket&& other) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket();

  int fd() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

  // Whole buffers, waiting at most until `deadline`; `what` names the step
  // and the peer in errors.
  void send_all(const void* data, size_t bytes, const Deadline& deadline, const std::string& what) const;
  void recv_all(void* data, size_t bytes, const Deadline& deadline, const std::string& what) const;
  void set_nonblocking() const;

 private:
  int fd_ = -1;
};

// A listening socket on 127.0.0.1 at a port the kernel picks.
Socket listen_on_loopback(uint16_t& port, int backlog);
// Connects to 127.0.0.1:port, retrying while nobody listens yet.
Socket connect_to_loopback(uint16_t port, const Deadline& deadline, const std::string& what);
Socket accept_from(const Socket& listener, const Deadline& deadline, const std::string& what);

}  // namespace npu::standin::hccl
