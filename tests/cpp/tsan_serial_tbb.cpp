// Under ThreadSanitizer only (scripts/sanitize.sh tsan): oneTBB runs every
// parallel algorithm on its calling thread. The system's libtbb is not
// instrumented, so TSan cannot see how a TBB worker receives its task (atomics
// inside libtbb) and would report every kernel input written before a
// parallel_for and read in a worker as a race. With one TBB thread the
// emulator's own threads (stream workers, host threads, events, allocator,
// runtime start and exit) are still checked completely; races between the
// tasks of one parallel kernel are not (they need an instrumented oneTBB).
// NPU_EMU_TSAN_PARALLEL_TBB=1 keeps TBB's workers, to see those reports.
#if defined(__SANITIZE_THREAD__)
#define NPU_EMU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NPU_EMU_TSAN 1
#endif
#endif

#ifdef NPU_EMU_TSAN
#include <tbb/global_control.h>

#include <cstdlib>
#include <memory>

namespace {

const std::unique_ptr<tbb::global_control> serial_tbb =
    std::getenv("NPU_EMU_TSAN_PARALLEL_TBB") != nullptr
        ? nullptr
        : std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, 1);

}  // namespace
#endif
