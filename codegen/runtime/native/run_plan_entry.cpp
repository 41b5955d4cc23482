// A C entry to run_plan for callers that hold a plan's values and buffers themselves (the tests and
// bench/, through ctypes: codegen/runtime/native_cpu.py); a generated driver calls run_plan directly.
#include <cstdio>

#include "recordings.h"
#include "run_plan.h"
#include "run_plan_cpu.h"

// run_plan for op `op` (its recorder and symbol table), its values and slots, on `device`, `repeat`
// times (a benchmark's loop without ctypes in it) or until it fails; the result as run_plan's, with
// its message in err.
OPGEN_NATIVE_API int opgen_native_run_plan(const char* op, opgen_plan_recorder record, const char* const* symbols,
                                           int64_t nsymbols, const opgen_plan_value* values, int64_t nvalues,
                                           const opgen_native::Slot* slots, int64_t nslots, int32_t device,
                                           int64_t repeat, char* err, int64_t errlen) {
  opgen_call call{};
  call.device = device;
  const opgen_native::PlanCall plan{op, record, symbols, nsymbols, values, nvalues, slots, nslots};
  int code = opgen_native::run_plan(&call, plan);
  for (int64_t k = 1; k < repeat && code == OPGEN_OK; ++k) code = opgen_native::run_plan(&call, plan);
  if (err && errlen > 0) snprintf(err, static_cast<size_t>(errlen), "%s", code ? call.err : "");
  return code;
}

// The recordings kept of op's recorder: recorded (0), replayed (1), kept now (2).
OPGEN_NATIVE_API int64_t opgen_native_recordings(opgen_plan_recorder record, int what) {
  opgen_native::RecordingStats s = opgen_native::recordings().stats(record);
  return what == 0 ? s.recorded : what == 1 ? s.replayed : s.kept;
}
