// The call log of the stand-in vendor libraries: one line per call of an
// exported ACL function, so tests of the NPU=acl path can check which vendor
// entry points the dispatch layer used, and on which stream.
//
// Format (one line per call, '\n'-terminated):
//   <name>                     e.g. "aclrtMalloc"
//   <name> stream=0x<hex>      for functions taking an aclrtStream by value
//                              (aclnn launches, aclrtSynchronizeStream, ...);
//                              lowercase hex, no padding, "0x0" for the
//                              default stream.
// Written to the file named by NPU_STANDIN_LOG (read at every call, so a test
// may point it elsewhere or unset it), opened in append mode; each line is
// one write(2) under an flock(2), so lines from several threads, the three
// libraries and several processes never interleave. Nothing is logged when
// the variable is unset or empty.
#pragma once

namespace npu::standin {

void log_call(const char* name);
void log_call(const char* name, const void* stream);

}  // namespace npu::standin
