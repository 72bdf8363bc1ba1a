// One thread per worker, each running the tasks the coordinator hands out
// (a phase, opening a backend, an fsync) on its own worker, while the
// coordinator waits with a timeout so it can watch signals, the clock and
// progress.  A worker's ring is made and released on its own thread
// (SINGLE_ISSUER: only that thread may submit to it or unregister from it).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/worker.h"

namespace ds::engine {

class WorkerPool {
  public:
    using Task = std::function<void(unsigned, Worker&)>;

    // Starts a thread per worker; worker i's thread runs on the CPUs
    // cpus[i] only (none given, or an empty set: anywhere).  Throws
    // SetupError naming the thread or CPUs that could not be had; no
    // thread is left running then.
    WorkerPool(std::vector<std::unique_ptr<Worker>>& workers,
               const std::vector<std::vector<unsigned>>& cpus);
    ~WorkerPool() { stop_threads(); }
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    void start(Task task);
    // True when every worker finished the task.
    bool wait_for(std::chrono::milliseconds timeout);
    // The first error a worker's task threw, if any (cleared).
    std::exception_ptr take_error();

  private:
    void stop_threads();
    void loop(unsigned i);

    std::vector<std::unique_ptr<Worker>>& workers_;
    std::vector<std::thread> threads_;
    std::mutex m_;
    std::condition_variable work_cv_, done_cv_;
    Task task_;
    std::uint64_t epoch_ = 0;
    std::size_t done_ = 0;
    bool quit_ = false;
    std::vector<std::exception_ptr> errors_;
};

}  // namespace ds::engine
