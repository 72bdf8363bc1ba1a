#include "engine/worker_pool.h"

#include <pthread.h>
#include <sched.h>

#include <cstring>
#include <string>
#include <system_error>
#include <utility>

#include "model/errors.h"
#include "sys/quit_and_join.h"

namespace ds::engine {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

WorkerPool::WorkerPool(std::vector<std::unique_ptr<Worker>>& workers,
                       const std::vector<std::vector<unsigned>>& cpus)
    : workers_(workers) {
    errors_.resize(workers.size());
    try {
        for (unsigned i = 0; i < workers.size(); ++i) {
            threads_.emplace_back([this, i] { loop(i); });
            if (i >= cpus.size() || cpus[i].empty()) continue;
            cpu_set_t set;
            CPU_ZERO(&set);
            std::string names;
            for (unsigned cpu : cpus[i]) {
                if (cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
                if (!names.empty()) names.append(",");
                names.append(std::to_string(cpu));
            }
            if (int err = pthread_setaffinity_np(threads_.back().native_handle(), sizeof set, &set))
                throw SetupError("worker " + std::to_string(i) + " cannot run on CPU " + names +
                                 " (--cpus, or its target's NUMA node): " + std::strerror(err));
        }
    } catch (const std::system_error& e) {
        // No destructor runs for a half-built pool: stop the threads
        // already started here, or they wait forever on a dead object.
        stop_threads();
        throw SetupError("cannot start worker thread " + std::to_string(threads_.size()) + " of " +
                         std::to_string(workers.size()) + ": " + e.what() + " (ulimit -u or -v?)");
    } catch (...) {
        stop_threads();
        throw;
    }
}

void WorkerPool::start(Task task) {
    std::lock_guard lk(m_);
    task_ = std::move(task);
    done_ = 0;
    ++epoch_;
    work_cv_.notify_all();
}

bool WorkerPool::wait_for(std::chrono::milliseconds timeout) {
    std::unique_lock lk(m_);
    return done_cv_.wait_for(lk, timeout, [&] { return done_ == workers_.size(); });
}

std::exception_ptr WorkerPool::take_error() {
    std::lock_guard lk(m_);
    for (auto& e : errors_)
        if (e) return std::exchange(e, nullptr);
    return nullptr;
}

void WorkerPool::stop_threads() {
    sys::quit_and_join(m_, quit_, work_cv_, threads_);
}

void WorkerPool::loop(unsigned i) {
    std::uint64_t seen = 0;
    while (true) {
        Task task;
        {
            std::unique_lock lk(m_);
            work_cv_.wait(lk, [&] { return quit_ || epoch_ != seen; });
            if (quit_) {
                // A ring is released by the thread that made it (SINGLE_ISSUER
                // refuses unregistering from others).
                workers_[i]->close_backend();
                return;
            }
            seen = epoch_;
            task = task_;
        }
        std::exception_ptr err;
        try {
            task(i, *workers_[i]);
        } catch (...) {
            err = std::current_exception();
        }
        {
            std::lock_guard lk(m_);
            if (err) errors_[i] = err;
            ++done_;
        }
        done_cv_.notify_all();
    }
}

}  // namespace ds::engine
