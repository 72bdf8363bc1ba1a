// fio's structured values as the job-file reader takes them: rw and its
// offset modifier, bsrange, bssplit, random_distribution, steadystate,
// CPU and NUMA node lists and ':'-separated names with fio's \: escape.
#include "jobfile/value_lists.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

using namespace ds::jobfile;

namespace {

template <class F>
std::string refusal(F f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("rw: every pattern, readwrite and rw alike, and the :N modifier") {
    CHECK(parse_rw("randrw", 1024).rw == Rw::randrw);
    CHECK(parse_rw("rw", 1024).rw == Rw::readwrite);
    CHECK(parse_rw("readwrite", 1024).rw == Rw::readwrite);
    CHECK(parse_rw("trimwrite", 1024).rw == Rw::trimwrite);
    CHECK(parse_rw("randtrimwrite", 1024).rw == Rw::randtrimwrite);
    RwValue back = parse_rw("read:-8k", 1024);
    CHECK(back.rw == Rw::read);
    CHECK(back.offset_step == -8192);
    CHECK(parse_rw("write:4k", 1024).offset_step == 4096);
    CHECK(parse_rw("write: 4k ", 1024).offset_step == 4096);  // fio strips the postfix
    RwValue run = parse_rw("randread:8", 1024);
    CHECK(run.random_run == 8);
    CHECK(run.offset_step == 0);
    CHECK(refusal([] { parse_rw("randread:8k", 1024); }) == "'8k' is not a count of I/Os");
    CHECK(refusal([] { parse_rw("randread:0", 1024); }) ==
          "'randread:0': at least one I/O per offset");
    CHECK(refusal([] { parse_rw("read,write", 1024); }) ==
          "'read,write': fio would ignore ',write'");
    CHECK(refusal([] {
              parse_rw("sequential", 1024);
          }).starts_with("'sequential' is not one of read, write, trim, randread,"));
    CHECK(refusal([] { parse_rw(" randread", 1024); }).starts_with("' randread' is not one of"));
}

TEST_CASE("bsrange: LOW-HIGH or LOW:HIGH, swapped when backwards") {
    CHECK(parse_size_range("4k-16k", 1024) == SizeRange{4096, 16384});
    CHECK(parse_size_range("4k:16k", 1024) == SizeRange{4096, 16384});
    CHECK(parse_size_range("16k-4k", 1024) == SizeRange{4096, 16384});
    CHECK(refusal([] { parse_size_range("4k", 1024); }) == "'4k' is not a range (LOW-HIGH)");
}

TEST_CASE("bssplit: missing per cents share the rest, sorted by per cent as fio sorts") {
    using B = std::vector<BlockShare>;
    CHECK(parse_bssplit_direction("4k/50:1k/:32k/", 1024) ==
          B{{1024, 25}, {32768, 25}, {4096, 50}});
    CHECK(parse_bssplit_direction("4k", 1024) == B{{4096, 100}});
    // 100 / 3 leaves one per cent: the last size in fio's order takes it
    CHECK(parse_bssplit_direction("4k:8k:16k", 1024) == B{{4096, 33}, {8192, 33}, {16384, 34}});
    // a 0 per cent is missing to fio: here it gets what is left, nothing
    CHECK(parse_bssplit_direction("4k/0:8k/100", 1024) == B{{8192, 100}});
    // JESD219's sizes: not powers of two
    B jesd = parse_bssplit_direction(
        "512/4:1024/1:1536/1:2048/1:2560/1:3072/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3", 1024);
    REQUIRE(jesd.size() == 12);
    CHECK(jesd.front() == BlockShare{1024, 1});
    CHECK(jesd.back() == BlockShare{4096, 67});
    CHECK(refusal([] { parse_bssplit_direction("4k/50:8k/30", 1024); }) ==
          "'4k/50:8k/30': the per cents add to 80, not 100");
    CHECK(refusal([] { parse_bssplit_direction("4k/60:8k/60:16k/", 1024); }) ==
          "'4k/60:8k/60:16k/': the per cents add to 120");
    CHECK(refusal([] { parse_bssplit_direction("4k/abc:8k/50", 1024); }) ==
          "'abc' is not a per cent from 0 to 100");
    CHECK(refusal([] { parse_bssplit_direction("4k/150", 1024); }) ==
          "'150' is not a per cent from 0 to 100");
    CHECK(refusal([] { parse_bssplit_direction("4k/50::8k/50", 1024); }) ==
          "'4k/50::8k/50': an empty size (fio stops reading there)");
    std::string many;
    for (int i = 0; i < 65; ++i)
        many.append(i ? ":" : "").append(std::to_string(512 * (i + 1))).append("/1");
    CHECK(refusal([&] { parse_bssplit_direction(many, 1024); }).ends_with("more than 64 sizes"));
}

TEST_CASE("random_distribution: fio's defaults, values and checks") {
    Distribution zipf = parse_distribution("zipf:1.2", 1024);
    CHECK(zipf.kind == DistributionKind::zipf);
    CHECK(zipf.parameter == 1.2);
    CHECK_FALSE(zipf.center);
    CHECK(parse_distribution("zipf", 1024).parameter == 1.1);
    CHECK(parse_distribution("pareto", 1024).parameter == 0.2);
    Distribution pareto = parse_distribution("pareto:0.9", 1024);
    CHECK(pareto.kind == DistributionKind::pareto);
    CHECK(pareto.parameter == 0.9);
    Distribution normal = parse_distribution("normal:5:0.25", 1024);
    CHECK(normal.kind == DistributionKind::normal);
    CHECK(normal.parameter == 5);
    CHECK(*normal.center == 0.25);
    CHECK(parse_distribution("random", 1024).kind == DistributionKind::random);
    CHECK(refusal([] { parse_distribution("zipf:1", 1024); }) ==
          "'zipf:1': zipf's theta must not be 1");
    CHECK(refusal([] { parse_distribution("pareto:1.5", 1024); }) ==
          "'pareto:1.5': pareto's power is between 0 and 1");
    CHECK(refusal([] { parse_distribution("normal:100", 1024); }) ==
          "'normal:100': normal's deviation is from 0 to under 100");
    CHECK(refusal([] { parse_distribution("zipf:1.2:2", 1024); }) ==
          "'zipf:1.2:2': the center is from 0 to 1");
    CHECK(refusal([] { parse_distribution("zipf:x", 1024); }) == "'x' is not a number");
    CHECK(refusal([] { parse_distribution("random:5", 1024); }) ==
          "'random:5': random takes no value");
    CHECK(refusal([] { parse_distribution("gauss", 1024); }) ==
          "'gauss' is not one of random, zipf, pareto, normal, zoned, zoned_abs");
}

TEST_CASE("zoned distributions: access and size per cents, or absolute sizes") {
    Distribution jesd = parse_distribution("zoned:50/5:30/15:20/80", 1024);
    CHECK(jesd.kind == DistributionKind::zoned);
    REQUIRE(jesd.zones[0].size() == 3);
    CHECK(jesd.zones[0][1] == Zone{30, 15, 0});
    CHECK(jesd.zones[2] == jesd.zones[0]);
    Distribution filled = parse_distribution("zoned:60/10:40/", 1024);
    CHECK(filled.zones[1][1] == Zone{40, 90, 0});
    Distribution abs = parse_distribution("zoned_abs:60/20G:30/100G:10/500g", 1024);
    CHECK(abs.kind == DistributionKind::zoned_abs);
    CHECK(abs.zones[0][0] == Zone{60, 0, 20ULL << 30});
    CHECK(refusal([] { parse_distribution("zoned:60/10:30/20", 1024); }) ==
          "'60/10:30/20': the access per cents add to 90, not 100");
    CHECK(refusal([] { parse_distribution("zoned:60/60:40/60", 1024); }) ==
          "'60/60:40/60': the per cents add to 120");
    CHECK(refusal([] { parse_distribution("zoned:60/10:40/90,50/50:50/50", 1024); }) ==
          "'zoned:60/10:40/90,50/50:50/50': fio 3.33 refuses zones per direction (its match "
          "stops at ',')");
    CHECK(refusal([] { parse_distribution("zoned", 1024); }) ==
          "'zoned': zones are ACCESS/SIZE:... after the ':'");
}

TEST_CASE("steadystate: a criterion and a limit, in per cent or absolute") {
    SteadyValue iops = parse_steadystate("iops:10%", 1024);
    CHECK(iops.kind == SteadyKind::iops);
    CHECK(iops.percent);
    CHECK(iops.limit == 10);
    SteadyValue bw = parse_steadystate("bw_slope:1%", 1024);
    CHECK(bw.kind == SteadyKind::bw_slope);
    CHECK(bw.limit == 1);
    SteadyValue bytes = parse_steadystate("bw:10m", 1024);
    CHECK_FALSE(bytes.percent);
    CHECK(bytes.limit == 10485760.0);
    CHECK(parse_steadystate("iops_slope:0.01%", 1024).limit == 0.01);
    CHECK(refusal([] { parse_steadystate("iops", 1024); }) ==
          "'iops': a limit is needed after ':' (iops:10%)");
}

TEST_CASE("CPU lists: numbers and ranges, sorted and unique; nodes also take all") {
    CHECK(parse_cpu_list("0,2,4-7") == std::vector<unsigned>{0, 2, 4, 5, 6, 7});
    CHECK(parse_cpu_list("3,1,1-2") == std::vector<unsigned>{1, 2, 3});
    CHECK(refusal([] { parse_cpu_list("3-1"); }) == "'3-1': a range goes from low to high");
    CHECK(refusal([] { parse_cpu_list("1,,2"); }) ==
          "'1,,2': an empty item (fio stops reading there)");
    CHECK(refusal([] { parse_cpu_list("1024"); }) == "'1024' is not a CPU number (0 to 1023)");
    CHECK(refusal([] { parse_cpu_list("x"); }) == "'x' is not a CPU number (0 to 1023)");
    CHECK(parse_node_list("all").empty());
    CHECK(parse_node_list("0-1") == std::vector<unsigned>{0, 1});
    CHECK(refusal([] { parse_node_list("!0"); }) ==
          "'!0': libnuma's '!' and '+' forms are not taken");
}

TEST_CASE("names split at ':', a backslash keeps a colon, empty names are skipped") {
    using V = std::vector<std::string>;
    CHECK(split_names("/dev/a:/dev/b") == V{"/dev/a", "/dev/b"});
    CHECK(split_names("a\\:b:c") == V{"a:b", "c"});
    CHECK(split_names(":a::b:") == V{"a", "b"});
    CHECK(split_names(" /tmp/x ") == V{"/tmp/x"});
    CHECK(split_names("C\\x") == V{"C\\x"});
    CHECK(refusal([] { split_names(":"); }) == "':': no name");
}
