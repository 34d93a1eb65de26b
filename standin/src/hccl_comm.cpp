#include "hccl_comm.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <random>

namespace npu::standin::hccl {
namespace {

constexpr uint32_t kMagic = 0x4e454843;  // marks the stand-in's root info and messages
constexpr char kRootTag[] = "npu-emu hccl v1";

// What the root info blob carries: where the root rank's rendezvous socket
// listens, and a nonce telling communicators (and stale blobs) apart.
struct RootInfoContent {
  char tag[sizeof(kRootTag)];
  uint16_t port;
  uint64_t nonce;
};
static_assert(sizeof(RootInfoContent) <= sizeof(HcclRootInfo::internal));

// A rank's announcement to the root, and to a peer when building the mesh.
struct Hello {
  uint32_t magic;
  uint32_t size;
  uint32_t rank;
  uint16_t port;
  uint64_t nonce;
};

// In front of every message of an exchange.
struct MessageHeader {
  uint32_t magic;
  uint32_t sender;
  uint64_t bytes;
  char operation[32];
};

// Rendezvous sockets made by HcclGetRootInfo in this process, waiting for the
// HcclCommInitRootInfo call that uses them (torch_npu: rank 0's).
std::mutex pending_roots_mutex;
std::map<uint64_t, Socket> pending_roots;

Socket take_pending_root(uint64_t nonce) {
  const std::lock_guard<std::mutex> lock(pending_roots_mutex);
  const auto found = pending_roots.find(nonce);
  if (found == pending_roots.end()) return Socket();
  Socket listener = std::move(found->second);
  pending_roots.erase(found);
  return listener;
}

RootInfoContent read_root_info(const HcclRootInfo& info) {
  RootInfoContent content;
  std::memcpy(&content, info.internal, sizeof(content));
  if (std::memcmp(content.tag, kRootTag, sizeof(kRootTag)) != 0) {
    throw HcclError(HCCL_E_PARA, "rootInfo was not made by this HCCL's HcclGetRootInfo (npu-emu's CANN stand-in)");
  }
  return content;
}

std::string rank_name(uint32_t rank) { return "rank " + std::to_string(rank); }

}  // namespace

void make_root_info(HcclRootInfo& info) {
  uint16_t port = 0;
  // The backlog holds every rank's connection until the root's init accepts it.
  Socket listener = listen_on_loopback(port, 1024);
  RootInfoContent content{};
  std::memcpy(content.tag, kRootTag, sizeof(kRootTag));
  content.port = port;
  content.nonce = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}() ^
                  static_cast<uint64_t>(::getpid());
  std::memset(info.internal, 0, sizeof(info.internal));
  std::memcpy(info.internal, &content, sizeof(content));
  const std::lock_guard<std::mutex> lock(pending_roots_mutex);
  pending_roots.emplace(content.nonce, std::move(listener));
}

Communicator::Communicator(uint32_t size, const HcclRootInfo& root, uint32_t rank, std::string name)
    : size_(size), rank_(rank), name_(std::move(name)), peers_(size) {
  if (size == 0) throw HcclError(HCCL_E_PARA, "nRanks is 0; it must be at least 1");
  if (rank >= size) {
    throw HcclError(HCCL_E_PARA, "rank " + std::to_string(rank) + " is not below nRanks " + std::to_string(size));
  }
  build_mesh(root);
}

void Communicator::build_mesh(const HcclRootInfo& root) {
  const RootInfoContent content = read_root_info(root);
  const Deadline deadline = connect_deadline();
  uint16_t my_port = 0;
  const Socket listener = listen_on_loopback(my_port, static_cast<int>(size_) + 16);
  const Hello mine{kMagic, size_, rank_, my_port, content.nonce};
  std::vector<uint16_t> ports(size_);

  // 1. The rendezvous: the process holding the root socket collects every
  //    rank's mesh port and sends the table back.
  if (Socket rendezvous = take_pending_root(content.nonce); rendezvous.valid()) {
    std::vector<Socket> clients;
    std::vector<bool> seen(size_, false);
    ports[rank_] = my_port;
    seen[rank_] = true;
    for (uint32_t joined = 1; joined < size_; ++joined) {
      Socket client = accept_from(rendezvous, deadline,
                                  "communicator '" + name_ + "': waiting for the other ranks to join (" +
                                      std::to_string(joined) + " of " + std::to_string(size_) + " joined)");
      Hello hello{};
      client.recv_all(&hello, sizeof(hello), deadline, "communicator '" + name_ + "': a joining rank's hello");
      if (hello.magic != kMagic || hello.nonce != content.nonce) {
        throw HcclError(HCCL_E_PARA, "communicator '" + name_ + "': a process joined with a different rootInfo");
      }
      if (hello.size != size_ || hello.rank >= size_ || seen[hello.rank]) {
        throw HcclError(HCCL_E_PARA, "communicator '" + name_ + "': rank " + std::to_string(hello.rank) +
                                         " joined with nRanks " + std::to_string(hello.size) + ", expected nRanks " +
                                         std::to_string(size_) + " and every rank once");
      }
      seen[hello.rank] = true;
      ports[hello.rank] = hello.port;
      clients.push_back(std::move(client));
    }
    for (const Socket& client : clients) {
      client.send_all(ports.data(), ports.size() * sizeof(uint16_t), deadline, "sending the rank table");
    }
  } else {
    const Socket to_root =
        connect_to_loopback(content.port, deadline, "communicator '" + name_ + "': joining the root rank");
    to_root.send_all(&mine, sizeof(mine), deadline, "communicator '" + name_ + "': joining the root rank");
    to_root.recv_all(ports.data(), ports.size() * sizeof(uint16_t), deadline,
                     "communicator '" + name_ + "': waiting for the rank table from the root rank");
  }

  // 2. The mesh: every rank connects to the lower ranks and accepts the
  //    higher ones (their connections wait in the listener's backlog).
  for (uint32_t peer = 0; peer < rank_; ++peer) {
    const std::string what = "communicator '" + name_ + "': connecting to " + rank_name(peer);
    peers_[peer] = connect_to_loopback(ports[peer], deadline, what);
    peers_[peer].send_all(&mine, sizeof(mine), deadline, what);
  }
  for (uint32_t pending = rank_ + 1; pending < size_; ++pending) {
    const std::string what = "communicator '" + name_ + "': waiting for the higher ranks to connect";
    Socket peer = accept_from(listener, deadline, what);
    Hello hello{};
    peer.recv_all(&hello, sizeof(hello), deadline, what);
    if (hello.magic != kMagic || hello.nonce != content.nonce || hello.rank <= rank_ || hello.rank >= size_ ||
        peers_[hello.rank].valid()) {
      throw HcclError(HCCL_E_PARA, "communicator '" + name_ + "': unexpected connection while building the mesh");
    }
    peers_[hello.rank] = std::move(peer);
  }
  for (const Socket& peer : peers_) {
    if (peer.valid()) peer.set_nonblocking();
  }
}

HcclResult Communicator::async_error() const {
  const std::lock_guard<std::mutex> lock(error_mutex_);
  return error_;
}

void Communicator::fail(HcclResult code, const std::string& message) {
  const std::lock_guard<std::mutex> lock(error_mutex_);
  if (error_ == HCCL_SUCCESS) {
    error_ = code;
    error_message_ = message;
  }
}

void Communicator::require_healthy() const {
  const std::lock_guard<std::mutex> lock(error_mutex_);
  if (error_ != HCCL_SUCCESS) {
    throw HcclError(error_, "communicator '" + name_ + "' is unusable after an earlier failure: " + error_message_);
  }
}

namespace {

// One direction of one connection during an exchange: its messages in order,
// each a header followed by the payload.
struct Stream {
  struct Message {
    MessageHeader header;
    std::byte* receive_into;     // Incoming: payload destination
    const std::byte* send_from;  // Outgoing: payload source
  };
  std::deque<Message> messages;
  uint64_t offset = 0;      // into header + payload of messages.front()
  MessageHeader arriving{};  // receiving: the header as it comes in

  bool done() const { return messages.empty(); }
};

// A failed send or receive; a reset or broken pipe means the peer's end is gone.
[[noreturn]] void lost(const std::string& context, uint32_t peer, int error) {
  const bool gone = error == ECONNRESET || error == EPIPE;
  throw HcclError(HCCL_E_TCP_TRANSFER, context + ": " +
                                           (gone ? rank_name(peer) + " closed the connection (its process exited?): "
                                                 : std::string()) +
                                           std::strerror(error));
}

MessageHeader header_for(const char* operation, uint32_t sender, uint64_t bytes) {
  MessageHeader header{};
  header.magic = kMagic;
  header.sender = sender;
  header.bytes = bytes;
  std::strncpy(header.operation, operation, sizeof(header.operation) - 1);
  return header;
}

}  // namespace

void Communicator::exchange(const char* operation, const std::vector<Outgoing>& outgoing,
                            const std::vector<Incoming>& incoming) {
  const std::lock_guard<std::mutex> lock(exchange_mutex_);
  require_healthy();
  const Deadline deadline = exec_deadline();
  const std::string context = std::string(operation) + " on communicator '" + name_ + "' (" + rank_name(rank_) +
                              " of " + std::to_string(size_) + ")";
  std::vector<Stream> sends(size_), receives(size_);
  for (const Outgoing& message : outgoing) {
    sends.at(message.peer).messages.push_back({header_for(operation, rank_, message.bytes), nullptr, message.data});
  }
  for (const Incoming& message : incoming) {
    receives.at(message.peer).messages.push_back({header_for(operation, message.peer, message.bytes), message.data, nullptr});
  }
  try {
    while (true) {
      std::vector<pollfd> waits;
      std::vector<uint32_t> wait_peers;
      for (uint32_t peer = 0; peer < size_; ++peer) {
        const short events = static_cast<short>((sends[peer].done() ? 0 : POLLOUT) | (receives[peer].done() ? 0 : POLLIN));
        if (events == 0) continue;
        if (peer == rank_) throw HcclError(HCCL_E_INTERNAL, context + ": a message to this rank itself");
        waits.push_back({peers_[peer].fd(), events, 0});
        wait_peers.push_back(peer);
      }
      if (waits.empty()) return;
      const int ready = ::poll(waits.data(), waits.size(), deadline.remaining_ms());
      if (ready < 0) {
        if (errno == EINTR) continue;
        throw HcclError(HCCL_E_TCP_TRANSFER, context + ": poll: " + std::strerror(errno));
      }
      if (ready == 0) {
        std::string waiting;
        for (const uint32_t peer : wait_peers) waiting += (waiting.empty() ? "" : ", ") + rank_name(peer);
        deadline.expire(context + " (waiting for " + waiting + ")");
      }
      for (size_t i = 0; i < waits.size(); ++i) {
        const uint32_t peer = wait_peers[i];
        const int fd = waits[i].fd;
        const std::string with_peer = context + " with " + rank_name(peer);
        if ((waits[i].revents & (POLLIN | POLLHUP | POLLERR)) && !receives[peer].done()) {
          Stream& stream = receives[peer];
          Stream::Message& message = stream.messages.front();
          MessageHeader& expected = message.header;
          const bool in_header = stream.offset < sizeof(MessageHeader);
          MessageHeader& arriving = stream.arriving;
          std::byte* target = in_header ? reinterpret_cast<std::byte*>(&arriving) + stream.offset
                                        : message.receive_into + (stream.offset - sizeof(MessageHeader));
          const uint64_t left = in_header ? sizeof(MessageHeader) - stream.offset
                                          : expected.bytes - (stream.offset - sizeof(MessageHeader));
          const ssize_t got = ::recv(fd, target, left, MSG_DONTWAIT);
          if (got == 0) {
            throw HcclError(HCCL_E_TCP_TRANSFER, with_peer + ": " + rank_name(peer) +
                                                     " closed the connection (its process exited?)");
          }
          if (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) lost(with_peer, peer, errno);
          if (got > 0) {
            stream.offset += static_cast<uint64_t>(got);
            if (in_header && stream.offset == sizeof(MessageHeader)) {
              arriving.operation[sizeof(arriving.operation) - 1] = '\0';
              if (arriving.magic != kMagic || arriving.bytes != expected.bytes ||
                  std::strncmp(arriving.operation, expected.operation, sizeof(arriving.operation)) != 0) {
                throw HcclError(HCCL_E_REMOTE, with_peer + ": the ranks disagree: " + rank_name(peer) + " sent " +
                                                   std::to_string(arriving.bytes) + " bytes of " + arriving.operation +
                                                   " where this rank expected " + std::to_string(expected.bytes) +
                                                   " bytes of " + expected.operation);
              }
            }
            if (stream.offset == sizeof(MessageHeader) + expected.bytes) {
              stream.messages.pop_front();
              stream.offset = 0;
            }
          }
        }
        if ((waits[i].revents & (POLLOUT | POLLERR)) && !sends[peer].done()) {
          Stream& stream = sends[peer];
          const Stream::Message& message = stream.messages.front();
          const bool in_header = stream.offset < sizeof(MessageHeader);
          const std::byte* source = in_header ? reinterpret_cast<const std::byte*>(&message.header) + stream.offset
                                              : message.send_from + (stream.offset - sizeof(MessageHeader));
          const uint64_t left = in_header ? sizeof(MessageHeader) - stream.offset
                                          : message.header.bytes - (stream.offset - sizeof(MessageHeader));
          const ssize_t sent = ::send(fd, source, left, MSG_DONTWAIT | MSG_NOSIGNAL);
          if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) lost(with_peer, peer, errno);
          if (sent > 0) {
            stream.offset += static_cast<uint64_t>(sent);
            if (stream.offset == sizeof(MessageHeader) + message.header.bytes) {
              stream.messages.pop_front();
              stream.offset = 0;
            }
          }
        }
      }
    }
  } catch (const HcclError& error) {
    fail(error.code(), error.what());
    throw;
  }
}

}  // namespace npu::standin::hccl
