// Keeps the nodes of a node-based standard container (set, map,
// unordered_map) that entries leave, for entries that come later. The
// allocator's bookkeeping inserts and erases a few entries on every malloc
// and free of a small tensor; reusing nodes takes those heap allocations off
// the launch path without changing what the containers hold.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace npu::memory {

template <class Container, std::size_t kMaxSpare = 64>
class NodeRecycler {
 public:
  using Node = typename Container::node_type;

  // Erases the entry at `key_or_iterator` (if any) and keeps its node.
  template <class KeyOrIterator>
  void erase(Container& c, const KeyOrIterator& key_or_iterator) {
    keep(c.extract(key_or_iterator));
  }

  // A spare node (empty when there is none): the caller sets its value and
  // inserts it, or inserts normally when it is empty.
  Node take() {
    if (spare_.empty()) return Node();
    Node node = std::move(spare_.back());
    spare_.pop_back();
    return node;
  }

  void keep(Node node) {
    if (!node.empty() && spare_.size() < kMaxSpare) spare_.push_back(std::move(node));
  }

 private:
  std::vector<Node> spare_;
};

}  // namespace npu::memory
