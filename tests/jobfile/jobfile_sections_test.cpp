// The syntax of a fio job file as the reader takes it: sections, comments
// where fio has them, blanks as fio trims them, include (relative, loops,
// depth), ${VAR} and fio's keywords, standard input, and every bound that
// refuses a hostile file in one line.
#include "jobfile/sections.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace ds::jobfile;

namespace {

Environment test_env() {
    Environment env;
    env.variable = [](const std::string& name) -> std::optional<std::string> {
        if (name == "BS") return std::string("8k");
        if (name == "DEV") return std::string("/dev/nvme0n1");
        return std::nullopt;
    };
    env.pagesize = std::string("4096");  // not = "..": GCC 12 -Wrestrict
    env.mb_memory = std::string("16000");
    env.ncpus = std::string("8");
    return env;
}

std::vector<Section> sections(const std::string& text) {
    return parse_sections(text, "t.fio", test_env());
}

std::string refusal(const std::string& text) {
    try {
        sections(text);
    } catch (const JobFileError& e) {
        return e.what();
    }
    return "";
}

// A directory of job files, removed at the end.
struct TempDir {
    std::filesystem::path path;
    TempDir() {
        char name[] = "/tmp/jobfile_sections_XXXXXX";
        REQUIRE(mkdtemp(name) != nullptr);
        path = name;
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::string write(const std::string& name, const std::string& text) const {
        std::filesystem::path p = path / name;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p) << text;
        return p.string();
    }
};

}  // namespace

TEST_CASE("sections and options, with the lines they came from") {
    auto s = sections("[global]\nbs=4k\n\n[job1]\nrw=randread\ndirect\n[global2]\n");
    REQUIRE(s.size() == 3);
    CHECK(s[0].global);
    CHECK(s[0].name == "global");
    CHECK(s[0].options == std::vector<RawOption>{{"bs", "4k", {"t.fio", 2}}});
    CHECK_FALSE(s[1].global);
    CHECK(s[1].origin == Origin{"t.fio", 4});
    CHECK(s[1].options[1] == RawOption{"direct", std::nullopt, {"t.fio", 6}});
    CHECK(s[2].global);  // fio compares six letters
}

TEST_CASE("comments: whole lines and trailing, ';' or '#', anywhere in a line") {
    auto s = sections(
        "; a comment\n# another\n[j] ; trailing\n  bs=4k # trailing\n"
        "filename=/dev/disk#1\n   ;indented comment\n");
    REQUIRE(s.size() == 1);
    CHECK(s[0].name == "j");
    REQUIRE(s[0].options.size() == 2);
    CHECK(s[0].options[0].value == "4k");
    CHECK(s[0].options[1].value == "/dev/disk");  // fio has no escape for '#'
}

TEST_CASE("blanks: around the line and before '=' go; after '=' they stay, as in fio") {
    auto s = sections("[j]\r\n\t  bs = 4k  \r\nsize=1m\t\n");
    REQUIRE(s[0].options.size() == 2);
    CHECK(s[0].options[0].key == "bs");
    CHECK(s[0].options[0].value == " 4k");
    CHECK(s[0].options[1].value == "1m");
}

TEST_CASE("${VAR} and fio's keywords are replaced; an unset variable is empty") {
    auto s = sections(
        "[j]\nbs=${BS}\nfilename=${DEV}\nsize=${UNSET}1g\nnumjobs=$ncpus\n"
        "iodepth=$pagesize\nname=${BS\n");
    auto& o = s[0].options;
    CHECK(o[0].value == "8k");
    CHECK(o[1].value == "/dev/nvme0n1");
    CHECK(o[2].value == "1g");
    CHECK(o[3].value == "8");
    CHECK(o[4].value == "4096");
    CHECK(o[5].value == "${BS");
    CHECK(sections("[j]\nname=$ncpus$ncpus\n")[0].options[0].value == "88");
    std::string dollars(60000, '$');
    CHECK(sections("[j]\nname=" + dollars + "\n")[0].options[0].value == dollars);
    CHECK(refusal("[j]\nnumjobs=$ncpus/2\n") ==
          "t.fio:2: 'numjobs=8/2': fio 3.33 would work this out with bc; write the number");
}

TEST_CASE("refusals of the lines themselves") {
    CHECK(refusal("bs=4k\n[j]\n") == "t.fio:1: bs: outside any [section]");
    CHECK(refusal("[]\n") == "t.fio:1: a section with no name");
    CHECK(refusal("[j]\n[ ]\n") == "t.fio:2: a section with no name");
    CHECK(refusal("[job\n") == "t.fio:1: a section header '[job' does not end with ']'");
    CHECK(refusal("[job#1]\n") == "t.fio:1: a section header '[job' does not end with ']'");
    CHECK(refusal("[j]\n=4k\n") == "t.fio:2: an option with no name: '=4k'");
    CHECK(refusal("[" + std::string(256, 'n') + "]\n") ==
          "t.fio:1: a section name over 255 characters (fio cuts it short)");
    CHECK(refusal("include x.fio\n") == "t.fio:1: include: outside any [section]");
}

TEST_CASE("bounds: a long line, binary bytes, a file too large") {
    CHECK(refusal("[j]\nname=" + std::string(70000, 'x') + "\n") ==
          "t.fio:2: a line over 65536 bytes");
    CHECK(refusal(std::string("[j]\nbs=4k\0\n", 11)) ==
          "t.fio:2: binary content (byte 0x00 at column 6)");
    CHECK(refusal("[j]\n\x01\x02\n") == "t.fio:2: binary content (byte 0x01 at column 1)");
    CHECK(refusal(std::string(kMaxInputBytes + 1, '\n')) == "t.fio: over 16 MiB");
    CHECK(sections("[j]\nname=caf\xc3\xa9\n")[0].options[0].value == "caf\xc3\xa9");
}

TEST_CASE("include: relative to the including file, lines into the current section") {
    TempDir dir;
    dir.write("parts/common.fio", "bs=8k\n; comment\ninclude more.fio\n");
    dir.write("parts/more.fio", "iodepth=4\n");
    std::string main = dir.write("main.fio", "[j]\nrw=read\ninclude parts/common.fio\nsize=1m\n");
    std::istringstream no_stdin;
    auto s = read_sections(main, no_stdin, test_env());
    REQUIRE(s.size() == 1);
    REQUIRE(s[0].options.size() == 4);
    CHECK(s[0].options[1].key == "bs");
    CHECK(s[0].options[1].origin == Origin{(dir.path / "parts/common.fio").string(), 1});
    CHECK(s[0].options[2].key == "iodepth");
    CHECK(s[0].options[2].origin.file == (dir.path / "parts/more.fio").string());
    CHECK(s[0].options[3].origin == Origin{main, 4});
}

TEST_CASE("include: loops, depth over 16, a section inside, a missing file") {
    TempDir dir;
    std::istringstream no_stdin;
    auto refused = [&](const std::string& path) {
        try {
            read_sections(path, no_stdin, test_env());
        } catch (const JobFileError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    std::string a = dir.write("a.fio", "[j]\ninclude b.fio\n");
    std::string b = dir.write("b.fio", "bs=4k\ninclude a.fio\n");
    CHECK(refused(a) == b + ":2: include: '" + (dir.path / "a.fio").string() +
                            "' is already being read (an include loop)");
    std::string self = dir.write("self.fio", "[j]\ninclude self.fio\n");
    CHECK(refused(self).ends_with("is already being read (an include loop)"));
    for (int i = 0; i < 17; ++i)
        dir.write(std::string("d").append(std::to_string(i)).append(".fio"),
                  std::string("include d").append(std::to_string(i + 1)).append(".fio\n"));
    dir.write("d17.fio", "bs=4k\n");
    std::string deep = dir.write("deep.fio", "[j]\ninclude d0.fio\n");
    // main -> d0 is the first level, d15 -> d16 the seventeenth
    CHECK(refused(deep) ==
          (dir.path / "d15.fio").string() + ":1: include: more than 16 levels of include");
    std::string sixteen = dir.write("sixteen.fio", "[j]\ninclude d2.fio\n");  // d2 ... d17
    CHECK(read_sections(sixteen, no_stdin, test_env())[0].options.size() == 1);
    std::string sect = dir.write("sect.fio", "[j]\ninclude s.fio\n");
    dir.write("s.fio", "[other]\n");
    CHECK(refused(sect) ==
          (dir.path / "s.fio").string() + ":1: a section in an included file (fio refuses it)");
    std::string missing = dir.write("missing.fio", "[j]\ninclude nothere.fio\n");
    CHECK(refused(missing) == missing + ":2: include: " + (dir.path / "nothere.fio").string() +
                                  ": No such file or directory");
    CHECK(refused((dir.path / "none.fio").string()) ==
          (dir.path / "none.fio").string() + ": No such file or directory");
    CHECK(refused(dir.path.string()) == dir.path.string() + ": is a directory");
}

TEST_CASE("standard input is '-', named stdin in messages") {
    std::istringstream in("[j]\nbs=4k\n");
    auto s = read_sections("-", in, test_env());
    REQUIRE(s.size() == 1);
    CHECK(s[0].options[0].origin == Origin{"stdin", 2});
    std::istringstream bad("[j]\n[]\n");
    try {
        read_sections("-", bad, test_env());
        FAIL("accepted a section with no name");
    } catch (const JobFileError& e) {
        CHECK(std::string(e.what()) == "stdin:2: a section with no name");
    }
}

TEST_CASE("a reader without includes refuses them") {
    Environment env = test_env();
    env.includes = false;
    try {
        parse_sections("[j]\ninclude x.fio\n", "t.fio", env);
        FAIL("included");
    } catch (const JobFileError& e) {
        CHECK(std::string(e.what()) == "t.fio:2: include: includes are not read here");
    }
}
