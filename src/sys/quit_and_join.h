// How the two thread pools (the engine's workers, the sync backend's I/O
// threads) end: the same few lines, kept in one place.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace ds::sys {

// Sets `quit` under `m`, wakes every thread waiting on `work` for it, and
// joins them all; `threads` is empty afterwards.
inline void quit_and_join(std::mutex& m, bool& quit, std::condition_variable& work,
                          std::vector<std::thread>& threads) {
    {
        std::lock_guard lk(m);
        quit = true;
    }
    work.notify_all();
    for (auto& t : threads)
        t.join();
    threads.clear();
}

}  // namespace ds::sys
