// A CANN library torch_npu links against (DT_NEEDED) whose functions it never
// calls in eager mode (graph engine, data tunnels): the stand-in provides the
// file so the dynamic loader finds it, and nothing else.
