// libopapi.so / libnnopbase.so: CANN's aclnn operator library and its tensor
// object API. torch_npu dlopens them and dlsym's each name it needs; the
// names resolve in the emulator library, a DT_NEEDED dependency of these
// files (dlsym on a handle searches the library's dependencies too), so the
// libraries need no code of their own.
