#include "textflag.h"

// func prefetch(base *byte, off uint32)
TEXT ·prefetch(SB), NOSPLIT|NOFRAME, $0-12
	MOVQ base+0(FP), AX
	MOVL off+8(FP), BX
	PREFETCHT0 (AX)(BX*1)
	RET
