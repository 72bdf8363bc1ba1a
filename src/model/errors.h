// How each layer reports a problem: one convention per layer, converted
// exactly once on the way up.  The program (modes/program.cpp) and the mode
// that runs are the only place that turns an exception into a message and an
// exit code; every line on stderr is printed by units/diag.h ("drivestress:
// error: ...", "drivestress: warning: ..."), nowhere else
// (tests/house_test.py).
//
//   units/, stats/, pattern/, trace/  pure code: std::invalid_argument for input it
//       cannot take (an unparsable size, an empty series); std::optional for
//       "no answer" that is a normal outcome (no knee, no cliff, no steady
//       state yet).
//   jobfile/  a job file it refuses: JobFileError (an std::invalid_argument)
//       naming file, line, option and reason, what() the whole line; its
//       value parsers throw std::invalid_argument with the reason alone, which
//       the reader wraps.
//   io/      setup calls (open, ring init, buffer registration) throw
//       std::system_error naming the call and the path; the hot path never
//       throws: a negative result (-errno) or a short transfer is data the
//       engine counts and reports, and Backend::submit() returns how many
//       it submitted or -errno.  output::write_file_atomically throws
//       std::system_error ("PATH: what"); sys::errno_text words an errno.
//   sys/     never throws: what the system cannot tell is std::optional
//       (no /proc/stat, no mountinfo), the caller decides what that means.
//       The second signal's last word goes out with write(2) (async-signal
//       safe), prefixed by units::kProgramPrefix.
//   nvme/    never throws: a reading is std::optional plus the one-line
//       reason it is absent ("not an NVMe device"), since health is
//       best-effort and never stops a run.
//   cli/     UsageError: a bad command line, what() names the option;
//       main adds " (see --help)" and exits 1.  The system checks run after
//       parsing throw SetupError like run/.  A job file's jobs it cannot
//       run the way the file asks (cli/job_file_jobs.h) are refused as the
//       reader refuses: jobfile::JobFileError, naming file, line and option.
//   targets/, engine/, run/  SetupError (below) for anything found before or
//       while preparing a run: bad target, no space, a file it does not
//       own; what() is the whole line, exit 1.  Problems during the run (I/O
//       errors, mismatches, lost units) are never thrown: they are records
//       in Results and decide the verdict (exit 2).  An error that ends a
//       run after its first phase is caught by the runner and becomes
//       RunResult::fatal_error: the run still reports what it did (exit 1
//       unless a mismatch makes it 2).  A std::system_error from io/ during
//       setup is caught where the path is known and rethrown as SetupError,
//       or passes to main unchanged when its text names it.
//   report/, metrics/, modes/  a results file that cannot be written is
//       recorded by the Delivery (modes/delivery.h): a writer's finish()
//       returns the failure as one line ("" when written), the report still
//       prints, the line "result ERROR: ..." names the file, and the exit
//       is 1 unless the verdict is already worse.
//   Anything a person should know that changes no verdict (a file someone
//   else removed, a checkpoint that could not be written yet) is
//   units::warning; news of the run itself (stopping, leftovers removed)
//   units::info.
#pragma once

#include <stdexcept>
#include <string>

namespace ds::model {

// A setup or usage problem found before or while preparing a run: bad
// target, no space, refused file.  The program prints what() as one line and
// exits 1.
class SetupError : public std::runtime_error {
  public:
    explicit SetupError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace ds::model
