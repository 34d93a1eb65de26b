#include "hccl_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace npu::standin::hccl {
namespace {

std::string system_error(const std::string& what, int error) { return what + ": " + std::strerror(error); }

sockaddr_in loopback(uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

// Waits for `events` on `fd`; false when the deadline passed first.
bool wait_for(int fd, short events, const Deadline& deadline) {
  while (true) {
    pollfd entry{fd, events, 0};
    const int ready = ::poll(&entry, 1, deadline.remaining_ms());
    if (ready > 0) return true;
    if (ready == 0) return false;
    if (errno != EINTR) throw HcclError(HCCL_E_TCP_TRANSFER, system_error("poll", errno));
  }
}

}  // namespace

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

Socket::~Socket() {
  if (fd_ >= 0) ::close(fd_);
}

void Socket::set_nonblocking() const {
  const int flags = ::fcntl(fd_, F_GETFL, 0);
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags | O_NONBLOCK) < 0) {
    throw HcclError(HCCL_E_TCP_TRANSFER, system_error("fcntl(O_NONBLOCK)", errno));
  }
}

void Socket::send_all(const void* data, size_t bytes, const Deadline& deadline, const std::string& what) const {
  const auto* cursor = static_cast<const std::byte*>(data);
  while (bytes > 0) {
    if (!wait_for(fd_, POLLOUT, deadline)) deadline.expire(what);
    const ssize_t sent = ::send(fd_, cursor, bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      throw HcclError(HCCL_E_TCP_TRANSFER, system_error(what + " (the peer's process exited?)", errno));
    }
    cursor += sent;
    bytes -= static_cast<size_t>(sent);
  }
}

void Socket::recv_all(void* data, size_t bytes, const Deadline& deadline, const std::string& what) const {
  auto* cursor = static_cast<std::byte*>(data);
  while (bytes > 0) {
    if (!wait_for(fd_, POLLIN, deadline)) deadline.expire(what);
    const ssize_t got = ::recv(fd_, cursor, bytes, MSG_DONTWAIT);
    if (got == 0) throw HcclError(HCCL_E_TCP_TRANSFER, what + ": the peer closed the connection (its process exited?)");
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      throw HcclError(HCCL_E_TCP_TRANSFER, system_error(what, errno));
    }
    cursor += got;
    bytes -= static_cast<size_t>(got);
  }
}

Socket listen_on_loopback(uint16_t& port, int backlog) {
  Socket listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!listener.valid()) throw HcclError(HCCL_E_TCP_CONNECT, system_error("socket", errno));
  sockaddr_in address = loopback(0);
  if (::bind(listener.fd(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(listener.fd(), backlog) != 0) {
    throw HcclError(HCCL_E_TCP_CONNECT, system_error("listening on 127.0.0.1", errno));
  }
  socklen_t length = sizeof(address);
  if (::getsockname(listener.fd(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw HcclError(HCCL_E_TCP_CONNECT, system_error("getsockname", errno));
  }
  port = ntohs(address.sin_port);
  return listener;
}

Socket connect_to_loopback(uint16_t port, const Deadline& deadline, const std::string& what) {
  const sockaddr_in address = loopback(port);
  while (true) {
    Socket socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!socket.valid()) throw HcclError(HCCL_E_TCP_CONNECT, system_error("socket", errno));
    if (::connect(socket.fd(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0) {
      const int on = 1;
      ::setsockopt(socket.fd(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
      return socket;
    }
    const int error = errno;
    if (error != ECONNREFUSED && error != EINTR && error != EAGAIN) {
      throw HcclError(HCCL_E_TCP_CONNECT, system_error(what, error));
    }
    // Nobody listens there (yet, or any more): retry briefly until the deadline.
    if (deadline.remaining_ms() == 0) deadline.expire(what + " (connection refused: is the root rank alive?)");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Socket accept_from(const Socket& listener, const Deadline& deadline, const std::string& what) {
  while (true) {
    if (!wait_for(listener.fd(), POLLIN, deadline)) deadline.expire(what);
    Socket socket(::accept4(listener.fd(), nullptr, nullptr, SOCK_CLOEXEC));
    if (socket.valid()) {
      const int on = 1;
      ::setsockopt(socket.fd(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
      return socket;
    }
    if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED) {
      throw HcclError(HCCL_E_TCP_CONNECT, system_error(what, errno));
    }
  }
}

}  // namespace npu::standin::hccl
