# kernel_isa.cmake: the per-ISA units of the SIMD kernels, generated from one source per op.
# For each op in SCRATCHGPT_SIMD_OPS and each ISA, cmake/kernel_isa.cpp.in becomes
# <build>/generated/kernels/<op>_<isa>.cpp (it includes src/kernels/cpu/simd/<op>_isa.inc), added to
# scratchgpt_core here: the src/ glob sees only files under src/. docs/architecture.md says more.
set(SCRATCHGPT_SIMD_OPS adamw attention attention_decode crossentropy flash_attention
    flash_attention_bf16 gelu gemm gemm_bf16 layernorm matvec matvec_q8 softmax)
# ISA name (the file suffix and vec_<isa>.h), its Vec type, its GCC target string, SG_ISA_AVX512.
set(SCRATCHGPT_ISA_avx2 VecAvx2 "avx2,fma" 0)
set(SCRATCHGPT_ISA_avx512 VecAvx512 "avx512f,avx512vl,avx2,fma" 1)
# An op whose unit needs more than its ISA's set: SCRATCHGPT_TARGET_<op>_<isa> (the caller checks
# the CPU for it). matvec_q8's AVX-512 unit is its vpdpbusd (AVX512_VNNI) build.
set(SCRATCHGPT_TARGET_matvec_q8_avx512 "avx512f,avx512vl,avx512vnni,avx2,fma")
# gemm_bf16's AVX-512 unit is its vdpbf16ps (AVX512_BF16) build; its packers interleave bf16 with
# vpermw (AVX512BW, which every CPU with AVX512_BF16 has).
set(SCRATCHGPT_TARGET_gemm_bf16_avx512 "avx512f,avx512vl,avx512bw,avx512bf16,avx2,fma")
# flash_attention_bf16's AVX-512 unit: the fused attention's products on those pairs (its AVX2
# unit is empty).
set(SCRATCHGPT_TARGET_flash_attention_bf16_avx512 "avx512f,avx512vl,avx512bw,avx512bf16,avx2,fma")
foreach(OP IN LISTS SCRATCHGPT_SIMD_OPS)
  foreach(ISA avx2 avx512)
    list(GET SCRATCHGPT_ISA_${ISA} 0 ISA_VEC)
    list(GET SCRATCHGPT_ISA_${ISA} 1 ISA_TARGET)
    list(GET SCRATCHGPT_ISA_${ISA} 2 ISA_AVX512)
    if(DEFINED SCRATCHGPT_TARGET_${OP}_${ISA})
      set(ISA_TARGET ${SCRATCHGPT_TARGET_${OP}_${ISA}})
    endif()
    set(generated ${PROJECT_BINARY_DIR}/generated/kernels/${OP}_${ISA}.cpp)
    configure_file(${CMAKE_CURRENT_LIST_DIR}/kernel_isa.cpp.in ${generated} @ONLY)
    target_sources(scratchgpt_core PRIVATE ${generated})
    # Its own SG_ISA_* macros and target pragma: never merged into a unity build's batch.
    set_source_files_properties(${generated} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    if(SCRATCHGPT_FUZZ)
      # The harnesses parse files and never run a SIMD kernel; at -O1 these units were a third of
      # the fuzz build's compile time (clang: attention_avx512 32 s, 2 s at -O0).
      set_source_files_properties(${generated} PROPERTIES COMPILE_OPTIONS -O0)
    endif()
  endforeach()
endforeach()
