/* Compiles only with the Cortex-M4's flags: its DSP extension and its hard-float ABI. */
#if !defined(__ARM_ARCH_7EM__) || !defined(__ARM_FEATURE_DSP) || !defined(__ARM_PCS_VFP)
#error "not built for the cortex-m4: the toolchain file's CPU flags were dropped"
#endif
