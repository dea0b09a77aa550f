// cmd_report.cpp: 'scratchgpt report': options -> ReportRequest; src/run/report.h does the work.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "run/report.h"

namespace scratchgpt::cli {

void register_report(CLI::App& app) {
  auto r = std::make_shared<ReportRequest>();
  auto* cmd = app.add_subcommand(
      "report",
      "Draw training runs (their metrics.jsonl) as one self-contained HTML page: losses (log "
      "scale switch), learning rate, gradient norm, tokens/s, runs overlaid; or as CSV");
  cmd->add_option("--run", r->runs, "a train --out-dir; repeat it to overlay runs")->required();
  cmd->add_option("--out", r->out,
                  "the .html file to write (default: none; give --out, --csv or both)");
  cmd->add_option("--csv", r->csv,
                  "a .csv file of the same series (run,type,iter,loss,...; default: none)");
  cmd->add_flag("--overwrite", r->overwrite, "replace an existing --out or --csv");
  cmd->footer(
      "Example:\n"
      "  scratchgpt report --run out/small --run out/other --out report.html");
  cmd->callback([r] { run_report(*r, stdout); });
}

}  // namespace scratchgpt::cli
