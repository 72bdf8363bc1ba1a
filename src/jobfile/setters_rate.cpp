// Setters of the rate, think time, data, placement, log and steady-state
// options.
#include <limits>
#include <stdexcept>

#include "jobfile/setters.h"
#include "jobfile/value_lists.h"

namespace ds::jobfile::detail {

namespace {

constexpr unsigned kUintMax = std::numeric_limits<unsigned>::max();

unsigned count(const Job& j, const Value& v, unsigned min, unsigned max = kUintMax) {
    return static_cast<unsigned>(parse_integer(single(v), j.kb_base, min, max));
}

// rate=1m,500k: per direction, no ':' or '-' in an item.
void rates(PerDirection<std::uint64_t>& out, const Job& j, const Value& v, std::uint64_t max) {
    Directions d = split_directions(need(v));
    PerDirection<std::uint64_t> next = out;
    for (std::size_t i = 0; i < d.size(); ++i) {
        if (!d[i]) continue;
        next[i] = parse_integer(single(d[i]), j.kb_base, 0, max);
    }
    out = next;
}

// thinktime: fio's int in microseconds (at most 2^32 - 1 us).
std::uint64_t think_us(const Value& v) {
    std::uint64_t us = parse_time_us(single(v), BareUnit::microseconds);
    if (us > kUintMax) throw std::invalid_argument(quote(need(v)) + " is over 4294 s (fio's int)");
    return us;
}

Log log_of(const Value& v) {
    if (v && v->empty()) throw std::invalid_argument("an empty value");
    return Log{true, v ? *v : std::string()};
}

const Taken kSetters[] = {
    {"rate",
     [](Job& j, const Value& v) {
         rates(j.rate, j, v, std::numeric_limits<std::uint64_t>::max());
     }},
    {"rate_min",
     [](Job& j, const Value& v) {
         rates(j.rate_min, j, v, std::numeric_limits<std::uint64_t>::max());
     }},
    {"rate_iops", [](Job& j, const Value& v) { rates(j.rate_iops, j, v, kUintMax); }},
    {"rate_iops_min", [](Job& j, const Value& v) { rates(j.rate_iops_min, j, v, kUintMax); }},
    {"rate_process",
     [](Job& j, const Value& v) {
         static constexpr std::string_view kWords[] = {"linear", "poisson"};
         auto m = match_choice(need(v), kWords);
         if (!m || !m->rest.empty())
             throw std::invalid_argument(quote(need(v)) + " is not one of linear, poisson");
         j.rate_process = m->index == 0 ? RateProcess::linear : RateProcess::poisson;
     }},
    {"thinktime", [](Job& j, const Value& v) { j.thinktime_us = think_us(v); }},
    {"thinktime_spin", [](Job& j, const Value& v) { j.thinktime_spin_us = think_us(v); }},
    {"thinktime_blocks", [](Job& j, const Value& v) { j.thinktime_blocks = count(j, v, 0); }},
    {"buffer_compress_percentage",
     [](Job& j, const Value& v) { j.buffer_compress_percentage = count(j, v, 0, 100); }},
    {"refill_buffers", [](Job& j, const Value& v) { j.refill_buffers = flag(v); }},
    {"dedupe_percentage",
     [](Job& j, const Value& v) {
         j.dedupe_percentage = count(j, v, 0, 100);
         j.refill_buffers = true;  // as fio's str_dedupe_cb
     }},
    {"cpus_allowed", [](Job& j, const Value& v) { j.cpus_allowed = parse_cpu_list(need(v)); }},
    {"cpus_allowed_policy",
     [](Job& j, const Value& v) {
         static constexpr std::string_view kWords[] = {"shared", "split"};
         auto m = match_choice(need(v), kWords);
         if (!m || !m->rest.empty())
             throw std::invalid_argument(quote(need(v)) + " is not one of shared, split");
         j.cpus_allowed_policy = m->index == 0 ? CpusPolicy::shared : CpusPolicy::split;
     }},
    {"numa_cpu_nodes", [](Job& j, const Value& v) { j.numa_cpu_nodes = parse_node_list(need(v)); }},
    {"write_bw_log", [](Job& j, const Value& v) { j.bw_log = log_of(v); }},
    {"write_iops_log", [](Job& j, const Value& v) { j.iops_log = log_of(v); }},
    {"write_lat_log", [](Job& j, const Value& v) { j.lat_log = log_of(v); }},
    {"log_avg_msec", [](Job& j, const Value& v) { j.log_avg_msec = count(j, v, 0); }},
    {"per_job_logs", [](Job& j, const Value& v) { j.per_job_logs = parse_bool(single(v)); }},
    {"steadystate",
     [](Job& j, const Value& v) {
         SteadyValue s = parse_steadystate(need(v), j.kb_base);
         j.steadystate = s.kind;
         j.steadystate_limit = s.limit;
         j.steadystate_percent = s.percent;
     }},
    {"steadystate_duration",
     [](Job& j, const Value& v) {
         j.steadystate_duration_us = parse_time_us(single(v), BareUnit::seconds);
     }},
    {"steadystate_ramp_time",
     [](Job& j, const Value& v) {
         j.steadystate_ramp_us = parse_time_us(single(v), BareUnit::seconds);
     }},
};

}  // namespace

std::span<const Taken> rate_setters() {
    return kSetters;
}

}  // namespace ds::jobfile::detail
