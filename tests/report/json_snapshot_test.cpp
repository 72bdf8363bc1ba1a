// The --json document rewritten while the run goes on.
#include "report/json_snapshot.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace ds;

namespace {

// A fresh directory, removed with everything in it.
struct TempDir {
    fs::path path;
    TempDir() {
        char tmpl[] = "/tmp/ds-json-snapshot-XXXXXX";
        REQUIRE(::mkdtemp(tmpl) != nullptr);
        path = tmpl;
    }
    ~TempDir() { fs::remove_all(path); }
};

std::string read_text(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

model::RunResult two_iterations() {
    model::RunResult r;
    r.started_at = "2025-01-31T12:00:00Z";
    r.backend.used = io::BackendKind::sync;
    for (std::uint64_t i = 1; i <= 2; ++i) {
        r.begin_iteration(i, 0);
        model::PhaseResult p;
        p.phase = model::Phase::seq_write;
        p.workers = 1;
        p.seconds = 0.5;
        p.counters.write_ops = 4;
        p.counters.write_bytes = 4 << 20;
        r.add_phase(p);
    }
    return r;
}

}  // namespace

TEST_CASE("a regular file gets the run so far, marked in progress") {
    TempDir dir;
    const fs::path out = dir.path / "result.json";
    report::JsonSnapshotWriter w(output::OutputPath(out.string()), report::HostInfo{}, stderr);
    model::RunConfig cfg;
    model::RunResult r = two_iterations();
    w.started(cfg, r);
    CHECK(!fs::exists(out));  // nothing before the first snapshot
    w.run_so_far(r, nullptr);
    REQUIRE(fs::exists(out));
    json d = json::parse(read_text(out));
    CHECK(d["in_progress"] == true);
    CHECK(d["summary"]["status"] == "running");
    CHECK(d["iterations"].size() == 2);
    CHECK(w.writes() == 1);

    model::ProgressSnapshot live{3, model::Phase::seq_read, 0.5, 2.0, 0, 0};
    r.begin_iteration(3, 0);
    w.run_so_far(r, &live);
    d = json::parse(read_text(out));
    CHECK(d["progress"]["iteration"] == 3);
    CHECK(d["progress"]["phase"] == "seq-read");
    CHECK(d["iterations"].size() == 3);  // the third has no phase yet
    CHECK(w.writes() == 2);
    // Nothing but the document is left in the directory (no temporary files).
    CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator{}) == 1);
}

TEST_CASE("standard output, a FIFO or no --json get nothing during the run") {
    TempDir dir;
    model::RunConfig cfg;
    model::RunResult r = two_iterations();
    for (std::string path : {std::string("-"), std::string()}) {
        report::JsonSnapshotWriter w(output::OutputPath(path), report::HostInfo{}, stderr);
        w.started(cfg, r);
        w.run_so_far(r, nullptr);
        CHECK(w.writes() == 0);
    }
    // A reader waiting on a FIFO must get one document, the final one: no
    // open here (it would block without a reader, or feed it a document
    // per iteration).
    const fs::path fifo = dir.path / "fifo.json";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    report::JsonSnapshotWriter w(output::OutputPath(fifo.string()), report::HostInfo{}, stderr);
    w.started(cfg, r);
    w.run_so_far(r, nullptr);
    CHECK(w.writes() == 0);
}

TEST_CASE("a rewrite that fails is said once, then tried again") {
    TempDir dir;
    const fs::path out = dir.path / "result.json";
    fs::create_symlink(dir.path / "elsewhere.json", out);  // refused: never followed
    std::FILE* err = std::tmpfile();
    REQUIRE(err != nullptr);
    report::JsonSnapshotWriter w(output::OutputPath(out.string()), report::HostInfo{}, err);
    model::RunConfig cfg;
    model::RunResult r = two_iterations();
    w.started(cfg, r);
    w.run_so_far(r, nullptr);
    w.run_so_far(r, nullptr);
    CHECK(w.writes() == 0);
    CHECK(!fs::exists(dir.path / "elsewhere.json"));
    std::rewind(err);
    char buf[1024] = {};
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, err);
    std::fclose(err);
    const std::string said(buf, n);
    CAPTURE(said);
    CHECK(said.rfind("drivestress: warning: --json ", 0) == 0);
    CHECK(said.find(out.string()) != std::string::npos);
    CHECK(std::count(said.begin(), said.end(), '\n') == 1);

    fs::remove(out);  // the next snapshot gets through
    w.run_so_far(r, nullptr);
    CHECK(w.writes() == 1);
    CHECK(fs::is_regular_file(fs::symlink_status(out)));
}
