// A job's workload onto its JobSpec: rw and the mix's shares, the sizes,
// the distribution, depth and batch, rate and arrivals, syncs, the data's
// shape and CPUs.  A job's operations share one size list whatever their
// direction, and one rate; fio's per-direction values are taken when the
// directions the job does agree, and refused when they do not.
#include <algorithm>
#include <array>
#include <charconv>

#include "cli/job_file_map.h"

namespace ds::cli::jobmap {

namespace {

using jobfile::Job;
using jobfile::Rw;

// The per cent of the job's operations each direction takes.
using Shares = std::array<unsigned, 3>;

Shares map_rw(const Job& job, model::JobSpec& spec) {
    if (job.rw == Rw::trimwrite || job.rw == Rw::randtrimwrite)
        refuse(job, "rw", "a trim then a write of each block: drivestress has no such pairs");
    // A step reorders a stream's reads; a stream that writes would need its
    // operations kept apart across a wrap (not yet).
    if (job.rw_offset_step != 0 && job.rw != Rw::read)
        refuse(job, "rw",
               "an offset step of " + std::to_string(job.rw_offset_step) +
                   " bytes in a stream that writes or trims: steps are taken for rw=read");
    spec.offset_step = job.rw_offset_step;
    if (job.rw_random_run != 1)
        refuse(job, "rw",
               "runs of " + std::to_string(job.rw_random_run) +
                   " operations at one random offset: each is drawn anew");
    spec.access = jobfile::is_random(job.rw) ? model::Access::random : model::Access::sequential;
    switch (job.rw) {
        case Rw::read:
        case Rw::randread:
            return {100, 0, 0};
        case Rw::write:
        case Rw::randwrite:
            return {0, 100, 0};
        case Rw::trim:
        case Rw::randtrim:
            return {0, 0, 100};
        default:  // readwrite, randrw
            return {job.rwmixread, 100 - job.rwmixread, 0};
    }
}

// One direction's sizes: bssplit, else bsrange, else bs (fio's order).
std::vector<units::BlockShare> sizes_of(const Job& job, std::size_t d, std::string& option) {
    std::vector<units::BlockShare> mix;
    if (!job.bssplit[d].empty()) {
        option = "bssplit";
        for (const jobfile::BlockShare& b : job.bssplit[d]) {
            if (b.bytes > UINT32_MAX)
                refuse(job, option, bytes_text(b.bytes) + " bytes: too large");
            auto same = std::find_if(mix.begin(), mix.end(), [&](const units::BlockShare& m) {
                return m.bytes == b.bytes;
            });
            if (same != mix.end())
                same->weight += b.percent;
            else if (b.percent > 0)
                mix.push_back({static_cast<std::uint32_t>(b.bytes), b.percent});
        }
        std::sort(mix.begin(), mix.end(),
                  [](const units::BlockShare& a, const units::BlockShare& b) {
                      return a.bytes < b.bytes;
                  });
        return mix;
    }
    std::uint64_t bytes = job.bs[d];
    option = "bs";
    if (job.bsrange[d]) {
        option = "bsrange";
        if (job.bsrange[d]->min != job.bsrange[d]->max)
            refuse(job, option,
                   "sizes drawn from " + bytes_text(job.bsrange[d]->min) + " to " +
                       bytes_text(job.bsrange[d]->max) + ": give them with weights as bssplit");
        bytes = job.bsrange[d]->min;
    }
    if (bytes > UINT32_MAX) refuse(job, option, bytes_text(bytes) + " bytes: too large");
    return {{static_cast<std::uint32_t>(bytes), 100}};
}

// The sizes of the directions the job does, one list for all of them, and
// where random operations land: fio's blockalign, by default the smallest
// size, as fio's fixup_options (a sequential stream ignores it, as fio).
// Whether today's engine can run them is refuse_engine_limits'.
void map_sizes(const Job& job, const Shares& shares, model::JobSpec& spec) {
    std::vector<units::BlockShare> mix;
    std::uint64_t align = 0;
    std::string first_option;
    bool first = true;
    const bool random = spec.access == model::Access::random;
    for (std::size_t d = 0; d < 3; ++d) {
        if (!shares[d]) continue;
        std::string option;
        std::vector<units::BlockShare> m = sizes_of(job, d, option);
        const std::uint64_t a = job.blockalign[d];
        if (first) {
            mix = std::move(m);
            align = a;
            first_option = option;
            first = false;
            continue;
        }
        if (m != mix) refuse(job, option, "reads, writes and trims of one job share their sizes");
        if (random && a != align)
            refuse(job, "ba", "reads, writes and trims of one job share their alignment");
    }
    if (mix.size() > units::kMaxMixSizes)
        refuse(
            job, first_option,
            std::to_string(mix.size()) + " sizes: at most " + std::to_string(units::kMaxMixSizes));
    if (align > UINT32_MAX) refuse(job, "ba", bytes_text(align) + " bytes: too large");
    spec.block = mix.front().bytes;
    spec.blockalign = !random ? 0 : align ? static_cast<std::uint32_t>(align) : spec.block;
    if (mix.size() == 1)
        spec.mix.clear();
    else
        spec.mix = std::move(mix);
}

// The shortest text that reads back as `v` (a theta is passed on exactly).
std::string number_text(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

// fio's distribution in drivestress's words, checked by the same parser
// as --distribution.
void map_distribution(const Job& job, model::JobSpec& spec, std::vector<std::string>& notes) {
    const jobfile::Distribution& d = job.random_distribution;
    if (spec.access != model::Access::random || d.kind == jobfile::DistributionKind::random) return;
    if (d.center)
        refuse(job, "random_distribution", "a centre: the hot blocks are scattered over the file");
    std::string text;
    switch (d.kind) {
        case jobfile::DistributionKind::zipf:
            text = "zipf:" + number_text(d.parameter);
            break;
        case jobfile::DistributionKind::pareto:
            text = "pareto:" + number_text(d.parameter);
            break;
        case jobfile::DistributionKind::normal:
            text = "normal:" + number_text(d.parameter) + "%";
            break;
        case jobfile::DistributionKind::zoned:
            for (const jobfile::Zone& z : d.zones[0])
                text += (text.empty() ? "zoned:" : ",") + std::to_string(z.access_percent) + "/" +
                        std::to_string(z.size_percent);
            if (d.zones[1] != d.zones[0] || d.zones[2] != d.zones[0])
                refuse(job, "random_distribution", "zones per direction");
            note(notes, job, "random_distribution",
                 "each zone's blocks are scattered over the file, not one stretch as in fio");
            break;
        default:
            refuse(job, "random_distribution", "zoned_abs: zones are shares of the file");
    }
    try {
        spec.distribution = stats::parse_distribution(text);
    } catch (const std::invalid_argument& e) {
        refuse(job, "random_distribution", e.what());
    }
}

// fio's rates are per copy and per direction; a JobSpec's is the job's
// operations a second.  Per-direction rates are taken when they split as
// the mix does (rate_iops=300 on a 50/50 randrw is 600 a second).
void map_rate(const Job& job, const Shares& shares, model::JobSpec& spec) {
    bool iops = false, bytes = false;
    for (std::size_t d = 0; d < 3; ++d) {
        iops = iops || (shares[d] && job.rate_iops[d]);
        bytes = bytes || (shares[d] && job.rate[d]);
    }
    if (!iops && !bytes) return;
    const char* option = iops ? "rate_iops" : "rate";
    if (iops && bytes) refuse(job, "rate", "a rate in bytes beside rate_iops: give one");
    if (bytes && !spec.mix.empty())
        refuse(job, option, "bytes a second with several sizes: drivestress paces operations");
    const auto& per = iops ? job.rate_iops : job.rate;
    __extension__ using u128 = unsigned __int128;
    u128 sum = 0;
    for (std::size_t d = 0; d < 3; ++d)
        if (shares[d]) sum += per[d];
    if (sum > UINT64_MAX) refuse(job, option, "more than 2^64 - 1 a second");
    const auto total = static_cast<std::uint64_t>(sum);
    for (std::size_t d = 0; d < 3; ++d)
        if (shares[d] && u128{per[d]} * 100 != u128{total} * shares[d])
            refuse(job, option,
                   "per-direction rates that do not split as the mix (" +
                       std::to_string(shares[0]) + "/" + std::to_string(shares[1]) + "/" +
                       std::to_string(shares[2]) + ") does");
    double ops = static_cast<double>(total);
    if (bytes) {
        if (total % spec.block)
            refuse(job, option,
                   bytes_text(total) + " bytes a second is no whole number of " +
                       bytes_text(spec.block) + "-byte operations");
        ops = static_cast<double>(total / spec.block);
    }
    spec.rate = ops * job.numjobs;
    spec.arrivals = job.rate_process == jobfile::RateProcess::poisson ? model::Arrivals::poisson
                                                                      : model::Arrivals::fixed;
}

void map_sync(const Job& job, model::JobSpec& spec) {
    int methods = (job.fsync > 0) + (job.fdatasync > 0) + (job.sync != jobfile::SyncMode::none);
    if (methods > 1)
        refuse(job, job.fdatasync ? "fdatasync" : "sync", "one sync method per job: give one");
    if (job.fsync) {
        spec.sync = model::SyncMethod::fsync;
        spec.sync_every = job.fsync;
    } else if (job.fdatasync) {
        spec.sync = model::SyncMethod::fdatasync;
        spec.sync_every = job.fdatasync;
    } else if (job.sync == jobfile::SyncMode::sync) {
        spec.sync = model::SyncMethod::osync;
    } else if (job.sync == jobfile::SyncMode::dsync) {
        spec.sync = model::SyncMethod::dsync;
    }
    spec.end_fsync = job.end_fsync;
}

// buffer_compress_percentage: that share of each write compresses away, a
// ratio of 100 / (100 - P); dedupe_percentage: that share of units repeat.
void map_shape(const Job& job, model::JobSpec& spec) {
    double ratio = 1;
    if (job.buffer_compress_percentage) {
        const unsigned p = *job.buffer_compress_percentage;
        if (p >= 100 || 100.0 / (100 - p) > model::kMaxCompress)
            refuse(job, "buffer_compress_percentage",
                   std::to_string(p) + "%: data compresses " + number_text(model::kMaxCompress) +
                       "-fold at most");
        ratio = 100.0 / (100 - p);
    }
    spec.shape = pattern::make_shape(pattern::sector_random_bytes(ratio),
                                     job.dedupe_percentage * (model::kDedupeScale / 100));
}

void map_queue(const Job& job, bool sync_backend, model::JobSpec& spec,
               std::vector<std::string>& notes) {
    spec.depth = job.iodepth;
    if (sync_backend && job.iodepth > 1) {
        spec.depth = 1;
        note(notes, job, "iodepth",
             "'" + job.ioengine.name + "' does one I/O at a time, as in fio: depth 1");
    }
    // fio's fixup: a batch of 0, or above the depth, is the depth.
    spec.batch =
        job.iodepth_batch == 0 || job.iodepth_batch > spec.depth ? spec.depth : job.iodepth_batch;
}

}  // namespace

void map_workload(const Job& job, bool sync_backend, model::JobSpec& spec,
                  std::vector<std::string>& notes) {
    const Shares shares = map_rw(job, spec);
    spec.read_pct = shares[0];
    spec.trim_pct = shares[2];
    map_sizes(job, shares, spec);
    map_distribution(job, spec, notes);
    if (spec.access == model::Access::sequential && shares[0] && shares[1])
        refuse(job, "rw",
               "reads and writes in order: drivestress's stream has one position, fio keeps "
               "one per direction");
    if (spec.access == model::Access::random && !job.norandommap)
        note(notes, job, "rw", "offsets are drawn independently, as fio's norandommap draws them");
    map_queue(job, sync_backend, spec, notes);
    map_rate(job, shares, spec);
    map_sync(job, spec);
    map_shape(job, spec);
    if (job.cpus_allowed_policy == jobfile::CpusPolicy::split && job.numjobs > 1 &&
        !job.cpus_allowed.empty())
        refuse(job, "cpus_allowed_policy", "split: a job's copies share its CPUs");
    spec.cpus = job.cpus_allowed;
}

}  // namespace ds::cli::jobmap
