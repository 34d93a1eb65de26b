#include "device_model/fault_plan.h"

#include <cctype>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace npu::model {

namespace {

constexpr const char* kAllowed = "allowed entries: oom@N, aclnn_error@OP or aclnn_error@OP:N (N >= 1), comma-separated";

[[noreturn]] void bad_entry(const std::string& text, const std::string& entry, const std::string& why) {
  throw std::invalid_argument(std::string(kFaultsVariable) + "='" + text + "': entry '" + entry + "' " + why + "; " +
                              kAllowed);
}

// A whole decimal number >= 1.
std::optional<uint64_t> parse_count(const std::string& s) {
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
  return v >= 1 ? std::optional<uint64_t>(v) : std::nullopt;
}

bool valid_op_name(const std::string& s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

}  // namespace

FaultPlan parse_fault_plan(const std::string& text) {
  FaultPlan plan;
  std::stringstream ss(text);
  std::string entry;
  while (std::getline(ss, entry, ',')) {
    if (entry.empty()) bad_entry(text, entry, "is empty");
    const auto at = entry.find('@');
    if (at == std::string::npos) bad_entry(text, entry, "has no '@'");
    const std::string kind = entry.substr(0, at);
    const std::string arg = entry.substr(at + 1);
    if (kind == "oom") {
      const auto n = parse_count(arg);
      if (!n) bad_entry(text, entry, "needs an allocation number N >= 1 after oom@");
      plan.oom_at.push_back(*n);
    } else if (kind == "aclnn_error") {
      const auto colon = arg.find(':');
      std::string op = arg.substr(0, colon);
      if (!valid_op_name(op)) bad_entry(text, entry, "needs an operator name (aclnnAdd or Add) after aclnn_error@");
      OpFault fault;
      if (colon != std::string::npos) {
        const auto n = parse_count(arg.substr(colon + 1));
        if (!n) bad_entry(text, entry, "needs a launch number N >= 1 after ':'");
        fault.launch = *n;
      }
      fault.op = op.rfind("aclnn", 0) == 0 ? op : "aclnn" + op;
      plan.op_errors.push_back(fault);
    } else {
      bad_entry(text, entry, "has an unknown kind '" + kind + "'");
    }
  }
  return plan;
}

FaultPlan fault_plan_from_environment() {
  const char* v = std::getenv(kFaultsVariable);
  return v == nullptr || *v == '\0' ? FaultPlan{} : parse_fault_plan(v);
}

}  // namespace npu::model
