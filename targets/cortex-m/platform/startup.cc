// Start-up for Cortex-M firmware under QEMU: the vector table, Reset_Handler (FPU and MVE on,
// .data and .bss, stack paint, main, exit with main's status over semihosting) and fault handlers
// that print what happened and exit with kExitFault instead of locking up.

#include <stdint.h>

#include "platform/board.h"
#include "platform/console.h"
#include "platform/semihosting.h"

extern "C" {
// From the board's linker script (ld/common.ld).
extern uint32_t __data_start__[], __data_end__[], __data_load__[], __bss_start__[], __bss_end__[];
extern uint32_t __stack_limit__[];
void __stack_top__();  // declared as a function so that the vector table can hold its address
extern void (*__init_array_start[])();
extern void (*__init_array_end[])();

int main();

void Reset_Handler();
void fault_entry();
void SysTick_Handler();
}

namespace {

using Handler = void (*)();

#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
#define MOTE_INTERNAL_ARMV8M 1
#else
#define MOTE_INTERNAL_ARMV8M 0
#endif

// System control block registers.
constexpr uintptr_t kCcr = 0xE000ED14u;
constexpr uintptr_t kShcsr = 0xE000ED24u;
constexpr uintptr_t kCfsr = 0xE000ED28u;
constexpr uintptr_t kHfsr = 0xE000ED2Cu;
constexpr uintptr_t kMmfar = 0xE000ED34u;
constexpr uintptr_t kBfar = 0xE000ED38u;
constexpr uintptr_t kSfsr = 0xE000EDE4u;
constexpr uintptr_t kSfar = 0xE000EDE8u;

inline volatile uint32_t& register_at(uintptr_t address) {
  return *reinterpret_cast<volatile uint32_t*>(address);
}

// Reports and exits instead of escalating to a lockup; called by fault_entry on a fresh stack.
extern "C" [[noreturn]] __attribute__((used)) void fault_report(uint32_t exception, uint32_t pc,
                                                               uint32_t lr, uint32_t frame) {
  using mote::platform::Line;
  static constexpr const char* kNames[] = {"thread",    "reset",     "NMI",        "HardFault",
                                           "MemManage", "BusFault",  "UsageFault", "SecureFault"};
  const uint32_t cfsr = register_at(kCfsr);
  const uint32_t hfsr = register_at(kHfsr);
  {
    Line line;
    line.text("fault: ");
    if (exception < sizeof(kNames) / sizeof(kNames[0])) {
      line.text(kNames[exception]);
    } else {
      line.text("exception ").unsigned_number(exception);
    }
    line.text(" pc 0x").hex(pc).text(" lr 0x").hex(lr).text(" sp 0x").hex(frame);
    line.text(" cfsr 0x").hex(cfsr).text(" hfsr 0x").hex(hfsr);
    line.end();
  }
  // The causes CFSR and HFSR name, one per line, with the faulting address when it is valid.
  struct Cause {
    uint8_t bit;
    const char* text;
  };
  static constexpr Cause kCauses[] = {
      {0, "instruction access violation (MPU)"},
      {1, "data access violation (MPU)"},
      {3, "MPU fault on exception return"},
      {4, "MPU fault on exception entry (stack)"},
      {8, "instruction bus error"},
      {9, "precise data bus error"},
      {10, "imprecise data bus error"},
      {11, "bus error on exception return"},
      {12, "bus error on exception entry (stack overflow?)"},
      {16, "undefined instruction"},
      {17, "invalid state (Thumb bit clear?)"},
      {18, "invalid exception return"},
      {19, "coprocessor disabled or absent"},
      {20, "stack overflow (MSPLIM)"},
      {24, "unaligned access"},
      {25, "divide by zero"},
  };
  for (const Cause& cause : kCauses) {
    if ((cfsr & (1u << cause.bit)) == 0) continue;
    Line line;
    line.text("fault: ").text(cause.text);
    if (cause.bit == 1 && (cfsr & (1u << 7)) != 0) line.text(" at 0x").hex(register_at(kMmfar));
    if (cause.bit == 9 && (cfsr & (1u << 15)) != 0) line.text(" at 0x").hex(register_at(kBfar));
    line.end();
  }
  if ((hfsr & (1u << 1)) != 0) mote::platform::print("fault: vector table read failed\n");
#if MOTE_INTERNAL_ARMV8M
  if (exception == 7) {
    Line().text("fault: sfsr 0x").hex(register_at(kSfsr)).text(" sfar 0x").hex(register_at(kSfar)).end();
  }
#endif
  mote::platform::exit_program(mote::platform::kExitFault);
}

// After FPU/MVE access is on: the compiler may use their registers from here on.
[[noreturn]] __attribute__((noinline, used)) void start() {
  for (uint32_t *dst = __data_start__, *src = __data_load__; dst < __data_end__;) *dst++ = *src++;
  for (uint32_t* dst = __bss_start__; dst < __bss_end__;) *dst++ = 0;

  // Separate MemManage, BusFault, UsageFault (and SecureFault) handlers name the fault better
  // than an escalated HardFault; trap integer division by zero instead of returning 0.
  register_at(kShcsr) |= (1u << 16) | (1u << 17) | (1u << 18) | (MOTE_INTERNAL_ARMV8M ? 1u << 19 : 0);
  register_at(kCcr) |= 1u << 4;  // DIV_0_TRP
  asm volatile("dsb\n isb" ::: "memory");

  mote::platform::paint_stack();
  for (void (**init)() = __init_array_start; init < __init_array_end; ++init) (*init)();

  const int status = main();
  if (mote::platform::stack_guard_hit()) {
    mote::platform::print("error: the stack overflowed (raise mote_add_firmware's STACK_SIZE)\n");
    mote::platform::exit_program(mote::platform::kExitStackOverflow);
  }
  mote::platform::exit_program(status);
}

}  // namespace

// Naked so that no FPU or MVE instruction can run before CPACR allows it; on Armv8-M, MSPLIM
// makes a stack overflow fault right away (UsageFault STKOF) instead of corrupting memory.
extern "C" __attribute__((naked, noreturn)) void Reset_Handler() {
  asm volatile(
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
      "ldr r0, =0xE000ED88\n"  // CPACR: CP10 and CP11 full access (FPU, and MVE on Armv8.1-M)
      "ldr r1, [r0]\n"
      "orr r1, r1, #0x00F00000\n"
      "str r1, [r0]\n"
#endif
#if MOTE_INTERNAL_ARMV8M
      "ldr r0, =__stack_limit__\n"
      "msr msplim, r0\n"
#endif
      "dsb\n"
      "isb\n"
      "b %c0\n"
      :
      : "i"(start));
}

// Every fault vector: collect the exception number, the stacked pc and lr and the frame address,
// then drop the faulting stack (it may have overflowed) and report from the top of the stack.
extern "C" __attribute__((naked, noreturn)) void fault_entry() {
  asm volatile(
      "tst lr, #4\n"
      "ite eq\n"
      "mrseq r3, msp\n"
      "mrsne r3, psp\n"
#if MOTE_INTERNAL_ARMV8M
      "movs r0, #0\n"
      "msr msplim, r0\n"
#endif
      "mrs r0, ipsr\n"
      "movs r1, #0\n"
      "movs r2, #0\n"
      // Read the stacked pc and lr only from inside the stack: after an overflow the frame may
      // sit in memory that faults again, which would lock the CPU up.
      "ldr r12, =__stack_limit__\n"
      "cmp r3, r12\n"
      "blo 1f\n"
      "ldr r12, =__stack_top__ - 32\n"
      "cmp r3, r12\n"
      "bhi 1f\n"
      "ldr r1, [r3, #24]\n"
      "ldr r2, [r3, #20]\n"
      "1: ldr r12, =__stack_top__\n"
      "mov sp, r12\n"
      "b fault_report\n");
}

// Weak: cycles.cc defines the real one when the firmware counts instructions.
extern "C" __attribute__((weak, naked)) void SysTick_Handler() { asm volatile("b fault_entry\n"); }

// The 16 system exception vectors; Mote's firmware enables no external interrupt. Any exception
// without a handler of its own is reported as a fault.
extern "C" __attribute__((section(".vectors"), used)) const Handler g_vector_table[16] = {
    __stack_top__,  // initial stack pointer
    Reset_Handler,  // 1 reset
    fault_entry,     // 2 NMI
    fault_entry,     // 3 HardFault
    fault_entry,     // 4 MemManage
    fault_entry,     // 5 BusFault
    fault_entry,     // 6 UsageFault
    fault_entry,     // 7 SecureFault (Armv8-M)
    nullptr,        // 8 reserved
    nullptr,        // 9 reserved
    nullptr,        // 10 reserved
    fault_entry,     // 11 SVCall
    fault_entry,     // 12 DebugMonitor
    nullptr,        // 13 reserved
    fault_entry,     // 14 PendSV
    SysTick_Handler,  // 15 SysTick (cycles.cc defines the real one)
};
