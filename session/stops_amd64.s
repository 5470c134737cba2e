//go:build amd64 && !purego

#include "textflag.h"

// func scanStringAVX2(b []byte) (n int, escaped bool)
TEXT ·scanStringAVX2(SB), NOSPLIT, $0-33
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	XORQ DX, DX // i
	XORL R8, R8 // escaped
	MOVL $0x22, AX
	MOVQ AX, X1
	VPBROADCASTB X1, Y1 // '"'
	MOVL $0x5c, AX
	MOVQ AX, X2
	VPBROADCASTB X2, Y2 // '\\'
	MOVL $0x1f, AX
	MOVQ AX, X3
	VPBROADCASTB X3, Y3 // 0x1f

loop:
	LEAQ 32(DX), CX
	CMPQ CX, BX
	JA   done // fewer than 32 bytes left
	VMOVDQU   (SI)(DX*1), Y0
	VPCMPEQB  Y0, Y1, Y4
	VPCMPEQB  Y0, Y2, Y5
	VPMINUB   Y0, Y3, Y6
	VPCMPEQB  Y0, Y6, Y6 // b == min(b, 0x1f): b < 0x20
	VPOR      Y4, Y5, Y4
	VPOR      Y4, Y6, Y4
	VPMOVMSKB Y4, AX
	TESTL     AX, AX
	JNZ       found
	MOVQ      CX, DX
	JMP       loop

found:
	BSFL    AX, AX
	ADDQ    AX, DX // the stop
	MOVBLZX (SI)(DX*1), AX
	CMPB    AL, $0x5c
	JNE     done // a quote or a control byte
	LEAQ    1(DX), CX
	CMPQ    CX, BX
	JAE     done // a backslash at the end
	MOVBLZX (SI)(CX*1), AX
	CMPB    AL, $0x6e // n
	JEQ     simple
	CMPB    AL, $0x22 // "
	JEQ     simple
	CMPB    AL, $0x5c // \\
	JEQ     simple
	CMPB    AL, $0x2f // /
	JEQ     simple
	CMPB    AL, $0x74 // t
	JEQ     simple
	CMPB    AL, $0x72 // r
	JEQ     simple
	CMPB    AL, $0x62 // b
	JEQ     simple
	CMPB    AL, $0x66 // f
	JEQ     simple
	JMP     done // \u or a malformed escape

simple:
	MOVL $1, R8
	ADDQ $2, DX
	JMP  loop

done:
	MOVQ DX, n+24(FP)
	MOVB R8, escaped+32(FP)
	VZEROUPPER
	RET
