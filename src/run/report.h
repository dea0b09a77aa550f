// report.h: what 'scratchgpt report' does: one or several training runs' metrics.jsonl drawn as
// one self-contained page (core/page.h: nothing fetched; assets/report.js draws its SVG from the
// page's JSON data): train and val loss against the step (a log-scale switch), the learning rate,
// the gradient norm and tokens/s, the runs overlaid in colours (to compare seeds or settings),
// and each run's config (from its last.safetensors or best.safetensors) and best val loss. Each
// chart is an <svg data-chart="NAME"> holding one <path data-run="R" data-series="NAME"> per run
// and series, a point per logged line (val loss also a <circle class="marker"> per evaluation;
// ticks at 1-2-5 round values; a never-negative series' axis not below 0). With --csv, the same series as CSV (run,type,iter,loss,...)
// for spreadsheets and pandas. 'train --report FILE' redraws the page at every evaluation,
// reloading itself every 30 s while the run goes on. Leaves out: a server pushing updates.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace scratchgpt {

struct ReportRequest {
  std::vector<std::string> runs;  // out dirs of 'train', each with its metrics.jsonl
  std::string out;                // the .html file to write ("": none)
  std::string csv;                // the .csv file to write ("": none)
  int refresh_s = 0;              // > 0: the page reloads itself this often (a run going on)
  bool overwrite = false;         // replace existing outputs (core/atomic_file.h has the rule)
};

// out: where to say what was written (nullptr: nowhere).
void run_report(const ReportRequest& req, std::FILE* out);

}  // namespace scratchgpt
