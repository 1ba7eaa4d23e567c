#include "toposcope/app/anonymize_command.h"

namespace toposcope::app {

Result<experiments::AnonymizeSummary> RunAnonymize(const AnonymizeRequest& req) {
  if (req.dataset.empty()) return MakeKindError(ErrorKind::kUsage, "no dataset directory given");
  if (req.out.empty()) return MakeKindError(ErrorKind::kUsage, "no output directory given", "pass --out DIR");
  return experiments::AnonymizeDataset(req.dataset, req.out, req.options);
}

std::string AnonymizeSummaryText(const experiments::AnonymizeSummary& s, const AnonymizeRequest& req) {
  std::string out = "renamed " + std::to_string(s.map.hosts.size()) + " hosts, " +
                    std::to_string(s.map.switches.size()) + " switches, " + std::to_string(s.map.captures.size()) +
                    " captures (style " + std::string(experiments::NameStyleName(s.map.style)) + ", seed " +
                    std::to_string(req.options.seed) + ")\n";
  out += "wrote " + std::to_string(s.files) + " files to " + req.out + ": " + std::to_string(s.files_rewritten) +
         " rewritten, " + std::to_string(s.files_copied) + " copied as they are\n";
  if (req.options.blank_jobs) out += "blanked " + std::to_string(s.jobs_blanked) + " job cells\n";
  out += "mapping: " + s.map_path + " (keep it private: it undoes the renaming)\n";
  return out;
}

}  // namespace toposcope::app
