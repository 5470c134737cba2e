//go:build amd64 && !purego

#include "textflag.h"

// escLo and escHi classify the bytes that may follow a backslash alone
// (" \ / b f n r t) by nibble: c is one iff escLo[c&15] & escHi[c>>4] != 0.
// Each high nibble that holds one (2, 5, 6, 7) has its own bit, and each
// low-nibble entry sets the bits of the high nibbles it pairs with:
// 0x22 0x2f | 0x5c | 0x62 0x66 0x6e | 0x72 0x74. VPSHUFB looks up each
// 128-bit lane on its own, so each table is written twice.
DATA escLo<>+0(SB)/8, $0x00040008000d0000
DATA escLo<>+8(SB)/8, $0x0104000200000000
DATA escLo<>+16(SB)/8, $0x00040008000d0000
DATA escLo<>+24(SB)/8, $0x0104000200000000
GLOBL escLo<>(SB), RODATA|NOPTR, $32

DATA escHi<>+0(SB)/8, $0x0804020000010000
DATA escHi<>+8(SB)/8, $0x0000000000000000
DATA escHi<>+16(SB)/8, $0x0804020000010000
DATA escHi<>+24(SB)/8, $0x0000000000000000
GLOBL escHi<>(SB), RODATA|NOPTR, $32

// func scanStringAVX2(b []byte) (n int, escaped bool)
//
// 64 bytes a block, without a branch per escape: the masks of quotes,
// backslashes and control bytes of a block, the characters escaped by a
// backslash found with carry arithmetic (as simdjson does: a run of
// backslashes escapes the byte after it iff the run is odd), carried
// into the next block. The block loop stops at the first block holding
// an unescaped quote, a control byte, or an escaped byte that is not one
// of " \ / b f n r t (then n is the backslash before it).
TEXT ·scanStringAVX2(SB), NOSPLIT, $0-33
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	XORQ DX, DX  // block start
	XORQ R8, R8  // backslashes seen (escaped != 0)
	XORQ R12, R12 // 1: the byte at DX is escaped by the one before it
	MOVL $0x22, AX
	VMOVQ AX, X1
	VPBROADCASTB X1, Y1 // '"'
	MOVL $0x5c, AX
	VMOVQ AX, X2
	VPBROADCASTB X2, Y2 // '\\'
	MOVL $0x1f, AX
	VMOVQ AX, X3
	VPBROADCASTB X3, Y3 // 0x1f
	MOVL $0x0f, AX
	VMOVQ AX, X8
	VPBROADCASTB X8, Y8 // 0x0f
	VMOVDQU escLo<>(SB), Y9
	VMOVDQU escHi<>(SB), Y10
	VPXOR   Y11, Y11, Y11 // zero
	MOVQ    $0x5555555555555555, DI // even bits

loop:
	LEAQ 64(DX), CX
	CMPQ CX, BX
	JA   tail // fewer than 64 bytes left
	VMOVDQU (SI)(DX*1), Y0
	VMOVDQU 32(SI)(DX*1), Y7

	// R10: backslashes
	VPCMPEQB  Y0, Y2, Y4
	VPMOVMSKB Y4, R10
	VPCMPEQB  Y7, Y2, Y4
	VPMOVMSKB Y4, AX
	SHLQ      $32, AX
	ORQ       AX, R10

	// R9: quotes
	VPCMPEQB  Y0, Y1, Y4
	VPMOVMSKB Y4, R9
	VPCMPEQB  Y7, Y1, Y4
	VPMOVMSKB Y4, AX
	SHLQ      $32, AX
	ORQ       AX, R9

	// R13: bytes that may not follow a backslash alone
	VPAND     Y0, Y8, Y4
	VPSHUFB   Y4, Y9, Y4
	VPSRLW    $4, Y0, Y5
	VPAND     Y5, Y8, Y5
	VPSHUFB   Y5, Y10, Y5
	VPAND     Y4, Y5, Y4
	VPCMPEQB  Y4, Y11, Y4
	VPMOVMSKB Y4, R13
	VPAND     Y7, Y8, Y4
	VPSHUFB   Y4, Y9, Y4
	VPSRLW    $4, Y7, Y5
	VPAND     Y5, Y8, Y5
	VPSHUFB   Y5, Y10, Y5
	VPAND     Y4, Y5, Y4
	VPCMPEQB  Y4, Y11, Y4
	VPMOVMSKB Y4, AX
	SHLQ      $32, AX
	ORQ       AX, R13

	// AX: the escaped bytes. A backslash escaped from the last block
	// escapes nothing; a run starting on an odd bit escapes even bits.
	MOVQ  R12, AX
	NOTQ  AX
	ANDQ  AX, R10       // backslashes that escape
	MOVQ  R10, CX
	SHLQ  $1, CX
	ORQ   R12, CX       // CX: follows an escaping backslash
	MOVQ  CX, AX
	NOTQ  AX
	ANDQ  R10, AX
	MOVQ  DI, R11
	NOTQ  R11
	ANDQ  R11, AX       // runs that start on odd bits
	ADDQ  R10, AX       // their ends, and a run carried out
	SETCS R12
	MOVBQZX R12, R12
	SHLQ  $1, AX
	XORQ  DI, AX
	ANDQ  CX, AX        // AX: escaped bytes

	ANDQ AX, R13  // bad escapes
	NOTQ AX
	ANDQ AX, R9   // unescaped quotes

	// R11: control bytes (b == min(b, 0x1f))
	VPMINUB   Y0, Y3, Y4
	VPCMPEQB  Y0, Y4, Y4
	VPMOVMSKB Y4, R11
	VPMINUB   Y7, Y3, Y4
	VPCMPEQB  Y7, Y4, Y4
	VPMOVMSKB Y4, AX
	SHLQ      $32, AX
	ORQ       AX, R11
	ORQ       R11, R9 // unescaped quotes, control bytes
	MOVQ R9, AX
	ORQ  R13, AX
	JNZ  stop
	ORQ  R10, R8
	ADDQ $64, DX
	JMP  loop

stop:
	// The first stop: a quote or control byte, or the backslash before
	// a bad escape (bit 0 of R13: the last block's last byte).
	MOVQ    $64, AX
	BSFQ    R9, CX
	CMOVQNE CX, AX
	MOVQ    $64, CX
	BSFQ    R13, R11
	CMOVQNE R11, CX
	DECQ    CX
	CMPQ    CX, AX
	CMOVQLT CX, AX // AX: the stop, -1..63
	TESTQ   AX, AX
	JS      back
	MOVQ    AX, CX
	MOVQ    $2, R11
	SHLQ    CX, R11
	DECQ    R11
	ANDQ    R11, R10 // the backslashes up to the stop
	ORQ     R10, R8
	ADDQ    AX, DX
	JMP     done

back:
	DECQ DX
	JMP  done

tail:
	SUBQ R12, DX // a backslash at the end of the last block is the caller's

done:
	MOVQ  DX, n+24(FP)
	TESTQ R8, R8
	SETNE escaped+32(FP)
	VZEROUPPER
	RET
