# The Cortex-M CPUs Mote builds firmware for, each with the QEMU board that runs it. Shared by the
# host build (which firmware builds to configure) and the cross build (compiler flags, board).
#
#   mote_cortex_m_cpu(<cpu> <prefix>) sets, in the caller's scope:
#     <prefix>_FLAGS      compiler flags for the CPU (a list; also used when linking)
#     <prefix>_BOARD      QEMU machine, which is also the name of the board's linker script
#     <prefix>_EXTENSION  the kernels' extension: scalar, dsp or mve
#     <prefix>_SYSTICK_HZ the clock SysTick counts with CLKSOURCE=1 on that QEMU board

set(MOTE_CORTEX_M_CPUS cortex-m55 cortex-m4 cortex-m7 cortex-m33 cortex-m3)

function(mote_cortex_m_cpu cpu prefix)
  # Board clocks: hw/arm/mps2.c (25 MHz) and hw/arm/mps2-tz.c (AN505 20 MHz, AN547 32 MHz);
  # the instruction-count test checks them under -icount.
  if(cpu STREQUAL "cortex-m55")
    set(flags -mcpu=cortex-m55 -mfloat-abi=hard)  # implies MVE (integer and float) and FPv5
    set(board mps3-an547)
    set(extension mve)
    set(hz 32000000)
  elseif(cpu STREQUAL "cortex-m4")
    set(flags -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard)
    set(board mps2-an386)
    set(extension dsp)
    set(hz 25000000)
  elseif(cpu STREQUAL "cortex-m7")
    set(flags -mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard)
    set(board mps2-an500)
    set(extension dsp)
    set(hz 25000000)
  elseif(cpu STREQUAL "cortex-m33")
    set(flags -mcpu=cortex-m33 -mfpu=fpv5-sp-d16 -mfloat-abi=hard)
    set(board mps2-an505)
    set(extension dsp)
    set(hz 20000000)
  elseif(cpu STREQUAL "cortex-m3")
    set(flags -mcpu=cortex-m3 -mfloat-abi=soft)
    set(board mps2-an385)
    set(extension scalar)
    set(hz 25000000)
  else()
    message(FATAL_ERROR "mote: unknown Cortex-M CPU '${cpu}' (known: ${MOTE_CORTEX_M_CPUS})")
  endif()
  set(${prefix}_FLAGS -mthumb ${flags} PARENT_SCOPE)
  set(${prefix}_BOARD ${board} PARENT_SCOPE)
  set(${prefix}_EXTENSION ${extension} PARENT_SCOPE)
  set(${prefix}_SYSTICK_HZ ${hz} PARENT_SCOPE)
endfunction()
