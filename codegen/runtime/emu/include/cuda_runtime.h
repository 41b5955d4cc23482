// opgen host backend: everything a kernel needs from cuda_runtime.h is
// already provided by the force-included cuda_emu.h.
#pragma once
#ifndef OPGEN_HOST_EMU
#error "this cuda_runtime.h is the opgen host-emulation stub; compile through codegen.runtime.host"
#endif
