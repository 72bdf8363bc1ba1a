// --verify-only's text report within 100 columns: prose folds under its
// key, the rm command to copy stands alone on its lines, exact globs.
#include "report/verify_report.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "report/text_width.h"

using namespace ds;

namespace {

report::HostInfo host() {
    report::HostInfo h;
    h.hostname = "testhost";
    h.kernel = "6.1.0-18-amd64";
    return h;
}

// A damaged --keep run of `files` files deep in a results tree, verified
// with --cleanup: the evidence is kept.
model::VerifyOnlyResult damaged(std::size_t files, const std::string& dir) {
    model::VerifyOnlyResult r;
    r.state_path = dir + "/drivestress.state";
    r.geo.seed = 7;
    r.geo.file_bytes = 64 << 20;
    r.geo.unit_bytes = 4096;
    r.geo.bound = 1;
    for (std::size_t i = 0; i < files; ++i) {
        r.geo.paths.push_back(dir + "/drivestress-" + std::to_string(i) + ".dat");
        model::VerifyFileResult f;
        f.path = r.geo.paths.back();
        f.acknowledgements = 123456;
        f.intact = 16000;
        f.newer = 300;
        f.lost = i == 0;
        r.files.push_back(f);
    }
    r.intact = 16000 * files;
    r.newer = 300 * files;
    r.lost = 1;
    model::MismatchRecord m;
    m.path = r.geo.paths[0];
    m.offset = 52564021;
    m.unit_offset = 52563968;
    m.cls = pattern::MismatchClass::corrupt;
    m.bad_bytes = 1;
    m.expected_generation = 70000;
    m.found = pattern::ParsedHeader{};
    r.lost_records = {m};
    r.read_bytes = r.geo.file_bytes * files;
    r.seconds = 1.25;
    r.evidence_kept = true;
    return r;
}

std::vector<std::string> printed(const model::VerifyOnlyResult& r) {
    char* buf = nullptr;
    std::size_t size = 0;
    std::FILE* out = ::open_memstream(&buf, &size);
    REQUIRE(out != nullptr);
    report::print_verify_text(out, r, host());
    std::fclose(out);
    std::istringstream in(std::string(buf, size));
    std::free(buf);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);)
        lines.push_back(l);
    return lines;
}

// The lines from "kept ..." on that are `rm --` commands.
std::vector<std::string> rm_lines(const std::vector<std::string>& lines) {
    std::vector<std::string> out;
    for (const auto& l : lines)
        if (l.rfind("         rm -- ", 0) == 0) out.push_back(l.substr(9));
    return out;
}

}  // namespace

TEST_CASE("every line of a damaged run's verification fits 100 columns") {
    const std::string dir = "/srv/fleet-results/2026-12-02/rack-r12/server-0042/nvme0n1";
    const auto lines = printed(damaged(2, dir));
    for (const auto& l : lines) {
        CAPTURE(l);
        CHECK(report::columns_of(l) <= 100);
    }
    // The prose says where the command follows; the command is a line of its own.
    bool said = false;
    for (const auto& l : lines)
        said = said || l.ends_with("then remove them with:");
    CHECK(said);
    // Too long for one line: two commands, each whole.
    CHECK(rm_lines(lines) == std::vector<std::string>{"rm -- " + dir + "/drivestress-[0-1].dat",
                                                      "rm -- " + dir + "/drivestress.state"});
}

TEST_CASE("the rm command: one glob per ten files, exactly theirs; quoted where it must be") {
    const std::string dir = "/mnt/t";
    CHECK(rm_lines(printed(damaged(1, dir))) ==
          std::vector<std::string>{"rm -- /mnt/t/drivestress-0.dat /mnt/t/drivestress.state"});
    CHECK(
        rm_lines(printed(damaged(23, dir))) ==
        std::vector<std::string>{"rm -- /mnt/t/drivestress-[0-9].dat /mnt/t/drivestress-1[0-9].dat",
                                 "rm -- /mnt/t/drivestress-2[0-2].dat /mnt/t/drivestress.state"});
    CHECK(rm_lines(printed(damaged(11, "/mnt/a b"))) ==
          std::vector<std::string>{
              "rm -- '/mnt/a b/drivestress-'[0-9].dat '/mnt/a b/drivestress-'10.dat",
              "rm -- '/mnt/a b/drivestress.state'"});
    // Names a run did not give (a file renamed by hand): each as it is.
    model::VerifyOnlyResult odd = damaged(2, dir);
    odd.geo.paths[1] = "/mnt/t/it's.dat";
    CHECK(rm_lines(printed(odd)) ==
          std::vector<std::string>{"rm -- /mnt/t/drivestress-0.dat '/mnt/t/it'\\''s.dat' "
                                   "/mnt/t/drivestress.state"});
}

TEST_CASE("a long command goes on as more rm lines, each whole; --wide keeps one") {
    const std::string dir = "/srv/fleet-results/2026-12-02/rack-r12/server-0042/run-17";
    const auto lines = printed(damaged(40, dir));
    const auto rm = rm_lines(lines);
    REQUIRE(rm.size() >= 2);
    std::string words;
    for (const auto& l : rm) {
        CHECK(report::columns_of(l) + 9 <= 100);
        words += l.substr(5);
    }
    CHECK(words == " " + dir + "/drivestress-[0-9].dat " + dir + "/drivestress-1[0-9].dat " + dir +
                       "/drivestress-2[0-9].dat " + dir + "/drivestress-3[0-9].dat " + dir +
                       "/drivestress.state");
    report::set_text_width(0);
    const auto wide = rm_lines(printed(damaged(40, dir)));
    report::set_text_width(report::kTextWidth);
    CHECK(wide.size() == 1);
}
