// The body of a stream task: a move-only `void()` callable that keeps what
// it captured inside the object when that fits (kInlineBytes), so preparing
// and launching a small op allocates nothing for its task. Larger captures,
// and callables that may throw while moved, go to the heap. std::function
// would allocate for any capture over two pointers and must be copyable.
// Converts from any `void()` callable, std::function included, so task
// makers returning std::function<void()> keep working.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace npu::emu {

class TaskBody {
 public:
  // Room for the binary pointwise family's capture (two operands, alpha and
  // the output view, their shapes inline): the most frequent launch.
  static constexpr std::size_t kInlineBytes = 704;

  TaskBody() noexcept = default;
  TaskBody(std::nullptr_t) noexcept {}  // NOLINT: as std::function
  template <class F, class D = std::decay_t<F>,
            class = std::enable_if_t<!std::is_same_v<D, TaskBody> && std::is_invocable_r_v<void, D&>>>
  TaskBody(F&& f) {  // NOLINT: implicit, as std::function's
    // An empty std::function or a null function pointer makes an empty body.
    if constexpr (std::is_pointer_v<D> ||
                  (std::is_constructible_v<bool, const D&> && !std::is_convertible_v<const D&, bool>)) {
      if (!static_cast<bool>(f)) return;
    }
    if constexpr (stores_inline<D>()) {
      ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
      ops_ = &kOps<D, false>;
    } else {
      ::new (static_cast<void*>(storage_)) Boxed<D>{std::make_unique<D>(std::forward<F>(f))};
      ops_ = &kOps<Boxed<D>, true>;
    }
  }

  TaskBody(TaskBody&& other) noexcept { take(other); }
  TaskBody& operator=(TaskBody&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  TaskBody& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }
  TaskBody(const TaskBody&) = delete;
  TaskBody& operator=(const TaskBody&) = delete;
  ~TaskBody() { reset(); }

  // A body holding the D that `make()` returns, built in its inline room
  // (D must fit: stores_inline<D>()): the prvalue is constructed where it
  // stays, where building D first and converting it would copy its capture.
  template <class D, class Make>
  static TaskBody make_inline(Make&& make) {
    static_assert(stores_inline<D>(), "make_inline: the callable does not fit TaskBody's inline room");
    TaskBody body;
    ::new (static_cast<void*>(body.storage_)) D(std::forward<Make>(make)());
    body.ops_ = &kOps<D, false>;
    return body;
  }
  // The D a make_inline<D> body holds, to finish it in place.
  template <class D>
  D& inline_target() noexcept {
    return *std::launder(reinterpret_cast<D*>(storage_));
  }
  // Makes this body the one `make()` returns, constructed where this one
  // lies (no move of the returned body: a binary op's capture is 664
  // bytes). Left empty if `make` throws.
  template <class Make>
  void assign_from(Make&& make) {
    reset();
    this->~TaskBody();
    try {
      ::new (static_cast<void*>(this)) TaskBody(std::forward<Make>(make)());
    } catch (...) {
      ::new (static_cast<void*>(this)) TaskBody();
      throw;
    }
  }

  explicit operator bool() const noexcept { return ops_ != nullptr; }
  // Whether a callable of type D is kept inside the TaskBody (no allocation).
  template <class D>
  static constexpr bool stores_inline() {
    return sizeof(D) <= kInlineBytes && alignof(D) <= alignof(std::max_align_t) &&
           std::is_nothrow_move_constructible_v<D>;
  }
  // Whether this body's callable is kept inside it (false when empty).
  bool holds_inline() const noexcept { return ops_ != nullptr && !ops_->boxed; }
  // Calls the callable; throws std::bad_function_call when empty.
  void operator()() {
    if (ops_ == nullptr) throw std::bad_function_call();
    ops_->call(storage_);
  }

 private:
  struct Ops {
    void (*call)(void* self);
    void (*move)(void* to, void* from) noexcept;  // move-constructs, then destroys `from`
    void (*destroy)(void* self) noexcept;
    bool boxed;
  };
  // A large callable, held through one heap block.
  template <class D>
  struct Boxed {
    std::unique_ptr<D> callable;
    void operator()() { (*callable)(); }
  };
  template <class D, bool IsBoxed>
  static constexpr Ops kOps{
      [](void* self) { (*static_cast<D*>(self))(); },
      [](void* to, void* from) noexcept {
        ::new (to) D(std::move(*static_cast<D*>(from)));
        static_cast<D*>(from)->~D();
      },
      [](void* self) noexcept { static_cast<D*>(self)->~D(); },
      IsBoxed,
  };

  void reset() noexcept {
    if (ops_ != nullptr) ops_->destroy(storage_);
    ops_ = nullptr;
  }
  void take(TaskBody& other) noexcept {
    if (other.ops_ == nullptr) return;
    other.ops_->move(storage_, other.storage_);
    ops_ = std::exchange(other.ops_, nullptr);
  }

  const Ops* ops_ = nullptr;
  alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
};

}  // namespace npu::emu
