/*
 * tests/nvvm_ir.h - the NVVM IR both NVVM tests compile (tests/test_real_toolkit.c here, without a GPU;
 * tests/gpu/toolkit.c, which also launches it): one kernel, cubind_scale, that doubles
 * a[threadIdx.x]. Included by one translation unit of each program (a static definition).
 */
#ifndef CUBIND_TESTS_NVVM_IR_H
#define CUBIND_TESTS_NVVM_IR_H

/* NVVM IR (LLVM 7 text, NVVM IR 2.0) of one kernel that doubles a[threadIdx.x]. */
static const char nvvm_ir[] =
    "target datalayout = \"e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-"
    "f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64\"\n"
    "target triple = \"nvptx64-unknown-cuda\"\n"
    "define void @cubind_scale(float* %a) {\n"
    "entry:\n"
    "  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %p = getelementptr float, float* %a, i32 %tid\n"
    "  %v = load float, float* %p\n"
    "  %w = fmul float %v, 2.0\n"
    "  store float %w, float* %p\n"
    "  ret void\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "!nvvm.annotations = !{!0}\n"
    "!0 = !{void (float*)* @cubind_scale, !\"kernel\", i32 1}\n"
    "!nvvmir.version = !{!1}\n"
    "!1 = !{i32 2, i32 0, i32 3, i32 1}\n";

#endif /* CUBIND_TESTS_NVVM_IR_H */
