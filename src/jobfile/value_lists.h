// fio's structured values (options.c's callbacks), read strictly: rw with
// its offset modifier, bssplit, random_distribution, steadystate, CPU and
// NUMA node lists, ':'-separated file names.  Each throws
// std::invalid_argument with a reason that does not name the option.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jobfile/job.h"

namespace ds::jobfile {

// rw=randread:8, rw=read:-8k.
struct RwValue {
    Rw rw = Rw::read;
    std::int64_t offset_step = 0;  // sequential: bytes added to each offset
    unsigned random_run = 1;       // random: I/Os per random offset
};
RwValue parse_rw(std::string_view text, unsigned kb_base);

// bsrange's "4k-16k" (or "4k:16k"); swapped when the first is larger.
SizeRange parse_size_range(std::string_view text, unsigned kb_base);

// One direction of bssplit, "4k/50:8k/:16k/" (a missing or 0 per cent
// shares what the others leave, as fio divides it; what the division
// leaves goes to the last size in fio's order), sorted by per cent as fio
// sorts it.  The per cents must come to 100.
std::vector<BlockShare> parse_bssplit_direction(std::string_view text, unsigned kb_base);

// random_distribution: random, zipf[:THETA[:CENTER]], pareto[:H[:CENTER]],
// normal[:DEV[:CENTER]], zoned:ACCESS/SIZE%:..., zoned_abs:ACCESS/SIZE:...
Distribution parse_distribution(std::string_view text, unsigned kb_base);

// steadystate: iops|iops_slope|bw|bw_slope:LIMIT[%].
struct SteadyValue {
    SteadyKind kind = SteadyKind::iops_slope;
    double limit = 0;
    bool percent = false;
};
SteadyValue parse_steadystate(std::string_view text, unsigned kb_base);

// cpus_allowed "0,2,4-7"; numa_cpu_nodes the same or "all" (empty).  Sorted, unique.
std::vector<unsigned> parse_cpu_list(std::string_view text);
std::vector<unsigned> parse_node_list(std::string_view text);

// filename and directory: names split at ':', "\:" for a colon in a name.
std::vector<std::string> split_names(std::string_view text);

// The text without fio's blanks at either end (strip_blank_front/end).
std::string_view strip_blanks(std::string_view text);

}  // namespace ds::jobfile
