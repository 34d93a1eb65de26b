// A vector of trivially copyable values whose first `Inline` elements live
// inside the object: shapes and strides (and the loop engine's per-dim
// strides) of the tensors an op touches are a handful of numbers, and a
// std::vector would allocate for each one on every launch. Beyond `Inline`
// elements it moves to the heap, so any rank still works.
// Offers the part of std::vector's interface the kernels and the emulator
// use; iterators are plain pointers, invalidated as std::vector's are.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace npu::kernels {

template <class T, std::size_t Inline>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector copies its elements bytewise");
  static_assert(Inline > 0, "SmallVector needs inline room");

 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  SmallVector() noexcept = default;
  explicit SmallVector(size_type n) { resize(n); }
  SmallVector(size_type n, const T& value) { assign(n, value); }
  SmallVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  SmallVector(It first, It last) {
    assign(first, last);
  }
  // Implicit: shapes arrive as std::vector from the ACL objects' int arrays.
  SmallVector(const std::vector<T>& values) { assign(values.begin(), values.end()); }  // NOLINT

  SmallVector(const SmallVector& other) {
    if (other.heap_) {
      assign(other.begin(), other.end());
    } else {
      copy_inline(other);
    }
  }
  SmallVector(SmallVector&& other) noexcept { take(other); }
  SmallVector& operator=(const SmallVector& other) {
    if (this == &other) return *this;
    if (other.heap_ || heap_) {
      assign(other.begin(), other.end());
    } else {
      copy_inline(other);
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept {
    if (this != &other) {
      heap_.reset();
      capacity_ = Inline;
      take(other);
    }
    return *this;
  }
  SmallVector& operator=(std::initializer_list<T> values) {
    assign(values.begin(), values.end());
    return *this;
  }
  ~SmallVector() = default;

  // A std::vector copy, for interfaces outside the kernels (device_model).
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  T* data() noexcept { return heap_ ? heap_.get() : inline_; }
  const T* data() const noexcept { return heap_ ? heap_.get() : inline_; }
  size_type size() const noexcept { return size_; }
  size_type capacity() const noexcept { return capacity_; }
  bool empty() const noexcept { return size_ == 0; }

  T& operator[](size_type i) { return data()[i]; }
  const T& operator[](size_type i) const { return data()[i]; }
  T& at(size_type i) {
    if (i >= size_) throw std::out_of_range("SmallVector::at");
    return data()[i];
  }
  const T& at(size_type i) const {
    if (i >= size_) throw std::out_of_range("SmallVector::at");
    return data()[i];
  }
  T& front() { return data()[0]; }
  const T& front() const { return data()[0]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  iterator begin() noexcept { return data(); }
  iterator end() noexcept { return data() + size_; }
  const_iterator begin() const noexcept { return data(); }
  const_iterator end() const noexcept { return data() + size_; }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }

  void reserve(size_type n) {
    if (n <= capacity_) return;
    const size_type grown = std::max<size_type>(n, 2 * size_type{capacity_});
    auto bigger = std::make_unique<T[]>(grown);
    if (size_ != 0) std::memcpy(bigger.get(), data(), size_ * sizeof(T));
    heap_ = std::move(bigger);
    capacity_ = static_cast<uint32_t>(grown);
  }
  void clear() noexcept { size_ = 0; }
  void resize(size_type n) { resize(n, T{}); }
  void resize(size_type n, const T& value) {
    reserve(n);
    if (n > size_) std::fill(data() + size_, data() + n, value);
    size_ = static_cast<uint32_t>(n);
  }
  void assign(size_type n, const T& value) {
    clear();
    resize(n, value);
  }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  void assign(It first, It last) {
    clear();
    reserve(static_cast<size_type>(std::distance(first, last)));
    for (T* out = data(); first != last; ++first) out[size_++] = *first;
  }
  void assign(std::initializer_list<T> values) { assign(values.begin(), values.end()); }

  void push_back(const T& value) {
    if (size_ == capacity_) {
      const T copy = value;  // `value` may live in this vector
      reserve(size_ + 1);
      data()[size_++] = copy;
      return;
    }
    data()[size_++] = value;
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    push_back(T{std::forward<Args>(args)...});
    return back();
  }
  void pop_back() { --size_; }

  iterator insert(const_iterator pos, const T& value) { return insert(pos, size_type{1}, value); }
  iterator insert(const_iterator pos, size_type n, const T& value) {
    const size_type at = static_cast<size_type>(pos - begin());
    const T copy = value;
    open_gap(at, n);
    std::fill(data() + at, data() + at + n, copy);
    return data() + at;
  }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  iterator insert(const_iterator pos, It first, It last) {
    const size_type at = static_cast<size_type>(pos - begin());
    // Copied first: the range may point into this vector.
    const SmallVector values(first, last);
    open_gap(at, values.size());
    std::copy(values.begin(), values.end(), data() + at);
    return data() + at;
  }
  iterator insert(const_iterator pos, std::initializer_list<T> values) {
    return insert(pos, values.begin(), values.end());
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    const size_type at = static_cast<size_type>(first - begin());
    const size_type n = static_cast<size_type>(last - first);
    std::copy(data() + at + n, data() + size_, data() + at);
    size_ -= static_cast<uint32_t>(n);
    return data() + at;
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    if (a.size_ != b.size_) return false;
    // A plain loop: a handful of elements, not worth a call to memcmp.
    const T* x = a.data();
    const T* y = b.data();
    for (size_type i = 0; i < a.size_; ++i) {
      if (!(x[i] == y[i])) return false;
    }
    return true;
  }
  friend bool operator!=(const SmallVector& a, const SmallVector& b) { return !(a == b); }
  friend bool operator<(const SmallVector& a, const SmallVector& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  // Moves elements [at, size) up by n, growing as needed.
  void open_gap(size_type at, size_type n) {
    reserve(size_ + n);
    T* d = data();
    std::copy_backward(d + at, d + size_, d + size_ + n);
    size_ += static_cast<uint32_t>(n);
  }
  // Takes other's elements (its heap block, or a copy of its inline ones)
  // and leaves it empty; this vector must hold no heap block.
  void take(SmallVector& other) noexcept {
    if (other.heap_) {
      heap_ = std::move(other.heap_);
      capacity_ = other.capacity_;
    } else {
      std::memcpy(inline_, other.inline_, sizeof(inline_));
    }
    size_ = other.size_;
    other.size_ = 0;
    other.capacity_ = Inline;
  }
  // Copies other's inline elements; this vector must hold no heap block.
  // The whole inline room, a constant size: a few vector moves instead of a
  // call to memcpy (shapes are copied and moved on every launch). Bytes past
  // size_ may be indeterminate; copying them as bytes is fine.
  void copy_inline(const SmallVector& other) noexcept {
    std::memcpy(inline_, other.inline_, sizeof(inline_));
    size_ = other.size_;
  }

  std::unique_ptr<T[]> heap_;  // null while the elements fit inline
  uint32_t size_ = 0;
  uint32_t capacity_ = Inline;
  T inline_[Inline];
};

}  // namespace npu::kernels
