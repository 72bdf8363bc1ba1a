// Setters of the workload, the queue and durability options.
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

// Per-direction values R,W,T, each read by `parse`; one item must not hold
// ':' or '-' unless `range` (fio would split there: bs=4k:8k is reads 4k,
// writes 8k).
template <class T, class Parse>
void per_direction(PerDirection<T>& out, const Value& v, Parse parse, bool range = false) {
    Directions d = split_directions(need(v));
    PerDirection<T> next = out;
    for (std::size_t i = 0; i < d.size(); ++i) {
        if (!d[i]) continue;
        std::size_t sep = d[i]->find_first_of(":-", 1);
        if (!range && sep != std::string::npos)
            throw std::invalid_argument(quote(need(v)) + ": '" + std::string(1, (*d[i])[sep]) +
                                        "' splits values for fio; write READ,WRITE,TRIM");
        next[i] = parse(*d[i]);
    }
    out = next;
}

std::uint64_t block(const Job& j, const std::string& text) {
    std::uint64_t v = parse_size(text, j.kb_base);
    if (v == 0) throw std::invalid_argument(quote(text) + ": a block size is at least 1");
    return v;
}

struct EngineName {
    std::string_view name;
    Backend backend;
};
constexpr EngineName kEngines[] = {
    {"io_uring", Backend::io_uring}, {"libaio", Backend::io_uring}, {"posixaio", Backend::io_uring},
    {"sync", Backend::sync},         {"psync", Backend::sync},      {"pvsync", Backend::sync},
    {"pvsync2", Backend::sync},      {"vsync", Backend::sync},      {"null", Backend::nop},
};

Engine engine(const Value& v) {
    const std::string& s = need(v);
    for (const EngineName& e : kEngines)
        if (s == e.name) return Engine{s, e.backend};
    throw std::invalid_argument(quote(s) +
                                " is not an engine drivestress runs (io_uring, libaio, " +
                                "posixaio, sync, psync, pvsync, pvsync2, vsync, null)");
}

SyncMode sync_mode(const Value& v) {
    static constexpr std::string_view kWords[] = {"none", "0", "sync", "1", "dsync"};
    constexpr SyncMode kModes[] = {SyncMode::none, SyncMode::none, SyncMode::sync, SyncMode::sync,
                                   SyncMode::dsync};
    auto m = match_choice(need(v), kWords);
    if (!m || !m->rest.empty())
        throw std::invalid_argument(quote(need(v)) + " is not one of none, 0, sync, 1, dsync");
    return kModes[m->index];
}

SubmitMode submit_mode(const Value& v) {
    static constexpr std::string_view kWords[] = {"inline", "offload"};
    auto m = match_choice(need(v), kWords);
    if (!m || !m->rest.empty())
        throw std::invalid_argument(quote(need(v)) + " is not one of inline, offload");
    return m->index == 0 ? SubmitMode::inline_submit : SubmitMode::offload;
}

const Taken kSetters[] = {
    {"rw",
     [](Job& j, const Value& v) {
         RwValue r = parse_rw(need(v), j.kb_base);
         j.rw = r.rw;
         j.rw_offset_step = r.offset_step;
         j.rw_random_run = r.random_run;
     }},
    {"rwmixread", [](Job& j, const Value& v) { j.rwmixread = count(j, v, 0, 100); }},
    {"rwmixwrite", [](Job& j, const Value& v) { j.rwmixread = 100 - count(j, v, 0, 100); }},
    {"bs",
     [](Job& j, const Value& v) {
         per_direction(j.bs, v, [&](const std::string& s) { return block(j, s); });
     }},
    {"ba",
     [](Job& j, const Value& v) {
         per_direction(j.blockalign, v, [&](const std::string& s) { return block(j, s); });
     }},
    {"bsrange",
     [](Job& j, const Value& v) {
         per_direction(
             j.bsrange, v,
             [&](const std::string& s) {
                 SizeRange r = parse_size_range(s, j.kb_base);
                 if (r.min == 0) throw std::invalid_argument(quote(s) + ": sizes from 1");
                 return std::optional<SizeRange>(r);
             },
             true);
     }},
    {"bssplit",
     [](Job& j, const Value& v) {
         Value stripped = std::string(strip_blanks(need(v)));
         per_direction(
             j.bssplit, stripped,
             [&](const std::string& s) { return parse_bssplit_direction(s, j.kb_base); }, true);
     }},
    {"random_distribution",
     [](Job& j, const Value& v) {
         j.random_distribution = parse_distribution(need(v), j.kb_base);
     }},
    {"norandommap", [](Job& j, const Value& v) { j.norandommap = flag(v); }},
    {"randrepeat", [](Job& j, const Value& v) { j.randrepeat = parse_bool(single(v)); }},
    {"randseed", [](Job& j, const Value& v) { j.randseed = parse_size(single(v), j.kb_base); }},
    {"ioengine", [](Job& j, const Value& v) { j.ioengine = engine(v); }},
    {"iodepth", [](Job& j, const Value& v) { j.iodepth = count(j, v, 1); }},
    {"iodepth_batch", [](Job& j, const Value& v) { j.iodepth_batch = count(j, v, 0); }},
    {"iodepth_batch_complete_min",
     [](Job& j, const Value& v) { j.iodepth_batch_complete_min = count(j, v, 0); }},
    {"iodepth_batch_complete_max",
     [](Job& j, const Value& v) { j.iodepth_batch_complete_max = count(j, v, 0); }},
    {"iodepth_low", [](Job& j, const Value& v) { j.iodepth_low = count(j, v, 0); }},
    {"io_submit_mode", [](Job& j, const Value& v) { j.io_submit_mode = submit_mode(v); }},
    {"direct", [](Job& j, const Value& v) { j.direct = parse_bool(single(v)); }},
    {"buffered", [](Job& j, const Value& v) { j.direct = !parse_bool(single(v)); }},
    {"fsync", [](Job& j, const Value& v) { j.fsync = count(j, v, 0); }},
    {"fdatasync", [](Job& j, const Value& v) { j.fdatasync = count(j, v, 0); }},
    {"end_fsync", [](Job& j, const Value& v) { j.end_fsync = parse_bool(single(v)); }},
    {"sync", [](Job& j, const Value& v) { j.sync = sync_mode(v); }},
};

}  // namespace

std::span<const Taken> workload_setters() {
    return kSetters;
}

}  // namespace ds::jobfile::detail
