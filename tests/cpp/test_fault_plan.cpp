// NPU_EMU_FAULTS parsing (device_model/fault_plan.h): the accepted forms, and
// every malformed entry refused naming the variable, the entry and the
// allowed forms.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "device_model/fault_plan.h"

using npu::model::parse_fault_plan;

TEST_CASE("fault plan: oom and operator entries", "[fault_plan]") {
  const auto plan = parse_fault_plan("oom@3,aclnn_error@Add,aclnn_error@aclnnMul:2,oom@10");
  REQUIRE(plan.oom_at == std::vector<uint64_t>{3, 10});
  REQUIRE(plan.op_errors.size() == 2);
  CHECK(plan.op_errors[0].op == "aclnnAdd");
  CHECK(plan.op_errors[0].launch == 1);
  CHECK(plan.op_errors[1].op == "aclnnMul");
  CHECK(plan.op_errors[1].launch == 2);
}

TEST_CASE("fault plan: malformed entries are refused", "[fault_plan]") {
  for (const std::string bad : {"oom", "oom@", "oom@0", "oom@-1", "oom@1x", "oom@99999999999999999999", "boom@1",
                                "aclnn_error@", "aclnn_error@Add:", "aclnn_error@Add:0", "aclnn_error@A-b",
                                "oom@1,,oom@2", ","}) {
    INFO(bad);
    try {
      parse_fault_plan(bad);
      FAIL("accepted");
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      CHECK(what.find("NPU_EMU_FAULTS") != std::string::npos);
      CHECK(what.find("allowed entries") != std::string::npos);
    }
  }
}
