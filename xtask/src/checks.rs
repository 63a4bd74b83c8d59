//! What the robot's tools and stack demand of an object, checked on binutils' own output
//! (`readelf`, `objdump`) and on the ELF header's bytes. Each check is a pure function of
//! that text, so the tests can feed it objects it must refuse.

use std::collections::{BTreeMap, BTreeSet};

/// The relocation types Sony's `mkbin`/`gensnap` take.
pub const ALLOWED_RELOCATIONS: [&str; 7] = [
    "R_MIPS_32",
    "R_MIPS_HI16",
    "R_MIPS_LO16",
    "R_MIPS_GOT16",
    "R_MIPS_CALL16",
    "R_MIPS_GPREL32",
    "R_MIPS_PC32",
];

/// Integer instructions of MIPS I and II, as `objdump -M no-aliases` names them. No
/// floating point (the core has none), no coprocessor 0, nothing of MIPS III or MIPS32.
pub const MIPS_II_INTEGER: &[&str] = &[
    // MIPS I (negu is `subu rd,zero,rt`, which objdump names so even with no-aliases)
    "negu", "add", "addi", "addiu", "addu", "and", "andi", "beq", "bgez", "bgezal", "bgtz", "blez",
    "bltz", "bltzal", "bne", "break", "div", "divu", "j", "jal", "jalr", "jr", "lb", "lbu", "lh",
    "lhu", "lui", "lw", "lwl", "lwr", "mfhi", "mflo", "mthi", "mtlo", "mult", "multu", "nor", "or",
    "ori", "sb", "sh", "sll", "sllv", "slt", "slti", "sltiu", "sltu", "sra", "srav", "srl", "srlv",
    "sub", "subu", "sw", "swl", "swr", "syscall", "xor", "xori", // MIPS II
    "beql", "bnel", "blezl", "bgtzl", "bltzl", "bgezl", "bltzall", "bgezall", "ll", "sc", "sync",
    "teq", "tge", "tgeu", "tlt", "tltu", "tne", "teqi", "tgei", "tgeiu", "tlti", "tltiu", "tnei",
];

/// Sections the object may hold, by name or by prefix (`.text.` and so on, one per
/// function or object as `-ffunction-sections` makes them).
const SECTIONS: [&str; 7] = [
    ".symtab",
    ".strtab",
    ".shstrtab",
    ".comment",
    ".mdebug.abi32",
    ".reginfo",
    ".pdr",
];
const SECTION_PREFIXES: [&str; 6] = [".text", ".rodata", ".data", ".sdata", ".bss", ".sbss"];

// ELF32 e_flags for MIPS.
const EF_MIPS_PIC: u32 = 0x2;
const EF_MIPS_CPIC: u32 = 0x4;
const EF_MIPS_ABI_O32: u32 = 0x1000;
const EF_MIPS_ABI_MASK: u32 = 0xf000;
const EF_MIPS_ARCH_MASK: u32 = 0xf000_0000;
const EF_MIPS_ARCH_2: u32 = 0x1000_0000;
const EF_MIPS_ARCH_1: u32 = 0x0000_0000;

/// The ELF header: a little-endian 32-bit MIPS relocatable object, o32, position-
/// independent (abicalls), MIPS I or II. Returns the flags' names.
pub fn elf_header(bytes: &[u8]) -> Result<String, String> {
    if bytes.len() < 52 || &bytes[..4] != b"\x7fELF" {
        return Err("not an ELF file".into());
    }
    let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    let flags = u32::from_le_bytes([bytes[36], bytes[37], bytes[38], bytes[39]]);
    let mut faults = Vec::new();
    if bytes[4] != 1 {
        faults.push("not 32-bit (ELFCLASS32)".to_string());
    }
    if bytes[5] != 1 {
        faults.push("not little-endian".to_string());
    }
    if u16_at(16) != 1 {
        faults.push(format!(
            "type {} where a relocatable object (1) was expected",
            u16_at(16)
        ));
    }
    if u16_at(18) != 8 {
        faults.push(format!(
            "machine {} where MIPS (8) was expected",
            u16_at(18)
        ));
    }
    if flags & EF_MIPS_ABI_MASK != EF_MIPS_ABI_O32 {
        faults.push(format!("ABI bits {:#x}, not o32", flags & EF_MIPS_ABI_MASK));
    }
    if flags & (EF_MIPS_PIC | EF_MIPS_CPIC) != EF_MIPS_PIC | EF_MIPS_CPIC {
        faults.push("not position-independent (pic, cpic)".to_string());
    }
    let arch = flags & EF_MIPS_ARCH_MASK;
    if arch != EF_MIPS_ARCH_2 && arch != EF_MIPS_ARCH_1 {
        faults.push(format!("architecture bits {arch:#x}, not MIPS I or II"));
    }
    if faults.is_empty() {
        Ok(format!(
            "flags {flags:#010x}: o32, pic, cpic, MIPS {}",
            if arch == EF_MIPS_ARCH_2 { "II" } else { "I" }
        ))
    } else {
        Err(faults.join("; "))
    }
}

/// Counts each relocation type in `readelf -rW` output; an error names the types the
/// robot's linker refuses.
pub fn relocations(readelf_r: &str) -> Result<BTreeMap<String, usize>, String> {
    let mut census = BTreeMap::new();
    for kind in readelf_r
        .split_whitespace()
        .filter(|w| w.starts_with("R_MIPS_"))
    {
        *census.entry(kind.to_string()).or_insert(0) += 1;
    }
    let refused: Vec<_> = census
        .keys()
        .filter(|k| !ALLOWED_RELOCATIONS.contains(&k.as_str()))
        .map(|k| format!("{k} ({})", census[k]))
        .collect();
    if refused.is_empty() {
        Ok(census)
    } else {
        Err(format!(
            "relocations the robot's linker refuses: {}",
            refused.join(", ")
        ))
    }
}

/// The section names in `readelf -SW` output; an error names any the robot's linker may
/// not take (`.note.GNU-stack`, `.MIPS.abiflags`, `.eh_frame` and the like).
pub fn sections(readelf_s: &str) -> Result<Vec<String>, String> {
    let names: Vec<String> = readelf_s
        .lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix('[')?;
            let (index, rest) = rest.split_once(']')?;
            index.trim().parse::<u32>().ok()?;
            rest.split_whitespace().next().map(str::to_string)
        })
        .filter(|n| n != "NULL")
        .collect();
    let allowed = |n: &str| {
        let n = n
            .strip_prefix(".rel")
            .filter(|r| r.starts_with('.'))
            .unwrap_or(n);
        SECTIONS.contains(&n)
            || SECTION_PREFIXES
                .iter()
                .any(|p| n == *p || n.strip_prefix(p).is_some_and(|r| r.starts_with('.')))
    };
    let refused: BTreeSet<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !allowed(n))
        .collect();
    if refused.is_empty() {
        Ok(names)
    } else {
        Err(format!(
            "sections the robot's linker may not take: {}",
            refused.into_iter().collect::<Vec<_>>().join(", ")
        ))
    }
}

/// One function of a disassembly: its stack frame and what it refers to.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Function {
    /// Bytes its prologue takes from the stack.
    pub frame: u32,
    /// Symbols its relocations name: what it calls or whose address it takes.
    pub refs: BTreeSet<String>,
}

/// A disassembly (`objdump -dr -M no-aliases`) read: every function, and the instruction
/// census.
#[derive(Debug, Default)]
pub struct Disassembly {
    pub functions: BTreeMap<String, Function>,
    pub census: BTreeMap<String, usize>,
}

/// Reads `objdump -dr -M no-aliases` output. An error names a stack pointer change it
/// cannot size (a frame set from a register).
pub fn disassembly(objdump: &str) -> Result<Disassembly, String> {
    let mut out = Disassembly::default();
    let mut current: Option<String> = None;
    for line in objdump.lines() {
        if let Some(name) = line
            .strip_suffix(">:")
            .and_then(|l| l.split_once(" <"))
            .filter(|(addr, _)| addr.chars().all(|c| c.is_ascii_hexdigit()))
            .map(|(_, name)| name.to_string())
        {
            out.functions.entry(name.clone()).or_default();
            current = Some(name);
            continue;
        }
        let Some(function) = current.as_ref().and_then(|n| out.functions.get_mut(n)) else {
            continue;
        };
        let fields: Vec<&str> = line.split('\t').collect();
        // A relocation: "\t\t\t8: R_MIPS_CALL16\tsymbol".
        if let Some(kind_at) = fields.iter().position(|f| f.contains(": R_MIPS_")) {
            if let Some(symbol) = fields.get(kind_at + 1) {
                let symbol = symbol.split("+0x").next().unwrap_or(symbol).trim();
                function.refs.insert(symbol.to_string());
            }
            continue;
        }
        // An instruction: "   c:\t27bdffe8 \taddiu\tsp,sp,-24".
        if fields.len() < 3 || !fields[0].trim_end().ends_with(':') {
            continue;
        }
        let mnemonic = fields[2].trim();
        *out.census.entry(mnemonic.to_string()).or_insert(0) += 1;
        let operands = fields.get(3).map_or("", |o| o.trim());
        if operands.starts_with("sp,") {
            if let Some(n) = operands
                .strip_prefix("sp,sp,")
                .filter(|_| mnemonic == "addiu")
            {
                let n: i64 = n.parse().map_err(|_| format!("unreadable frame: {line}"))?;
                if n < 0 {
                    function.frame = function.frame.max(n.unsigned_abs() as u32);
                }
            } else if !(matches!(mnemonic, "addu" | "or") && operands.ends_with(",zero")) {
                // Anything but a frame taken or given back by a constant, or the stack
                // pointer restored from the frame pointer.
                return Err(format!(
                    "a stack pointer change that cannot be sized: {line}"
                ));
            }
        }
    }
    Ok(out)
}

/// Instructions outside MIPS I/II's integer set, with their counts.
pub fn beyond_mips2(census: &BTreeMap<String, usize>) -> Vec<String> {
    census
        .iter()
        .filter(|(m, _)| !MIPS_II_INTEGER.contains(&m.as_str()))
        .map(|(m, n)| format!("{m} ({n})"))
        .collect()
}

/// Data sections' references to functions (`readelf -rW` output: `.rel.data.rel.ro.X`
/// naming a function makes `.data.rel.ro.X` a table of it, as a vtable is).
pub fn data_references(readelf_r: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut tables: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut section: Option<String> = None;
    for line in readelf_r.lines() {
        if let Some(rest) = line.strip_prefix("Relocation section '.rel") {
            let name = rest.split('\'').next().unwrap_or("").to_string();
            section = (!name.starts_with(".text")).then_some(name);
            continue;
        }
        let Some(section) = &section else { continue };
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() >= 5 && words[2].starts_with("R_MIPS_") {
            tables
                .entry(section.clone())
                .or_default()
                .insert(words[4].to_string());
        }
    }
    tables
}

/// The symbols each section-local symbol stands for: `readelf -sW` gives each symbol's
/// section index, `readelf -SW` each index's name.
pub fn symbol_sections(
    readelf_s_symbols: &str,
    readelf_s_sections: &str,
) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for l in readelf_s_sections.lines() {
        if let Some((index, rest)) = l
            .trim_start()
            .strip_prefix('[')
            .and_then(|r| r.split_once(']'))
        {
            if let (Ok(i), Some(name)) =
                (index.trim().parse::<u32>(), rest.split_whitespace().next())
            {
                names.insert(i.to_string(), name.to_string());
            }
        }
    }
    let mut out = BTreeMap::new();
    for l in readelf_s_symbols.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if w.len() >= 8 {
            if let Some(section) = names.get(w[6]) {
                out.insert(w[7].to_string(), section.clone());
            }
        }
    }
    out
}

/// An entry point's worst stack use: the deepest chain of frames below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackUse {
    pub bytes: u32,
    /// The chain, each function with its frame.
    pub path: Vec<(String, u32)>,
}

/// The call graph over a disassembly: a function calls what its relocations name, and
/// through a data table (a vtable) every function the table names; so an indirect call
/// through a table counts as a call of each function in it. Calls out of the object (the
/// embedder's callbacks, the C library) are not counted: the caller's budget leaves room.
pub struct CallGraph<'a> {
    functions: &'a BTreeMap<String, Function>,
    tables: &'a BTreeMap<String, BTreeSet<String>>,
    sections: &'a BTreeMap<String, String>,
}

impl<'a> CallGraph<'a> {
    pub fn new(
        functions: &'a BTreeMap<String, Function>,
        tables: &'a BTreeMap<String, BTreeSet<String>>,
        sections: &'a BTreeMap<String, String>,
    ) -> Self {
        CallGraph {
            functions,
            tables,
            sections,
        }
    }

    fn callees(&self, name: &str) -> BTreeSet<&'a str> {
        let mut out = BTreeSet::new();
        let Some(f) = self.functions.get(name) else {
            return out;
        };
        for r in &f.refs {
            if let Some((callee, _)) = self.functions.get_key_value(r) {
                out.insert(callee.as_str());
                continue;
            }
            let section = self
                .sections
                .get(r)
                .map(String::as_str)
                .unwrap_or(r.as_str());
            for target in self.tables.get(section).into_iter().flatten() {
                if let Some((callee, _)) = self.functions.get_key_value(target) {
                    out.insert(callee.as_str());
                }
            }
        }
        out
    }

    /// The worst stack use below `entry`; an error for recursion (unbounded) or an
    /// unknown entry.
    pub fn worst(&self, entry: &str) -> Result<StackUse, String> {
        let mut memo = BTreeMap::new();
        let mut on_path = Vec::new();
        self.walk(entry, &mut memo, &mut on_path)
    }

    fn walk(
        &self,
        name: &str,
        memo: &mut BTreeMap<String, StackUse>,
        on_path: &mut Vec<String>,
    ) -> Result<StackUse, String> {
        if let Some(known) = memo.get(name) {
            return Ok(known.clone());
        }
        if on_path.iter().any(|n| n == name) {
            on_path.push(name.to_string());
            return Err(format!(
                "recursion, so no stack bound: {}",
                on_path.join(" → ")
            ));
        }
        let frame = self
            .functions
            .get(name)
            .ok_or_else(|| format!("no function {name}"))?
            .frame;
        on_path.push(name.to_string());
        let mut deepest = StackUse {
            bytes: 0,
            path: Vec::new(),
        };
        for callee in self.callees(name) {
            let below = self.walk(callee, memo, on_path)?;
            if below.bytes > deepest.bytes {
                deepest = below;
            }
        }
        on_path.pop();
        let mut path = vec![(name.to_string(), frame)];
        path.extend(deepest.path);
        let found = StackUse {
            bytes: frame + deepest.bytes,
            path,
        };
        memo.insert(name.to_string(), found.clone());
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    //! Each check refuses what it is there to refuse, on text shaped as binutils prints it.
    use super::*;

    fn header(flags: u32) -> Vec<u8> {
        let mut h = vec![0u8; 52];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 1; // 32-bit
        h[5] = 1; // little-endian
        h[16] = 1; // relocatable
        h[18] = 8; // MIPS
        h[36..40].copy_from_slice(&flags.to_le_bytes());
        h
    }

    #[test]
    fn the_elf_check_takes_o32_pic_mips2_and_refuses_mips3_non_pic_and_n32() {
        assert!(elf_header(&header(0x1000_1007)).is_ok());
        let mips3 = elf_header(&header(0x2000_1007)).unwrap_err();
        assert!(mips3.contains("architecture"), "{mips3}");
        let fixed = elf_header(&header(0x1000_1001)).unwrap_err();
        assert!(fixed.contains("position-independent"), "{fixed}");
        let n32 = elf_header(&header(0x1000_0027)).unwrap_err();
        assert!(n32.contains("o32"), "{n32}");
        let mut big_endian = header(0x1000_1007);
        big_endian[5] = 2;
        assert!(elf_header(&big_endian)
            .unwrap_err()
            .contains("little-endian"));
        assert!(elf_header(b"\x7fELF").is_err());
    }

    #[test]
    fn relocations_outside_sonys_list_are_named_with_their_count() {
        let text = "\
Relocation section '.rel.text.f' at offset 0x1 contains 3 entries:
 Offset     Info    Type                Sym.Value  Sym. Name
00000000  00000105 R_MIPS_HI16            00000000   _gp_disp
00000018  00000225 R_MIPS_JALR            00000000   g
0000001c  00000225 R_MIPS_JALR            00000000   h
";
        let refused = relocations(text).unwrap_err();
        assert!(refused.contains("R_MIPS_JALR (2)"), "{refused}");
        let fine = relocations(&text.replace("R_MIPS_JALR", "R_MIPS_CALL16")).unwrap();
        assert_eq!(fine["R_MIPS_CALL16"], 2);
    }

    #[test]
    fn sections_that_add_program_headers_are_refused() {
        let listing = |extra: &str| {
            format!(
                "  [ 0]                   NULL            00000000 000000 000000 00      0   0  0
  [ 1] .text.aibo_bridge_new PROGBITS  00000000 000034 000100 00  AX  0   0  4
  [ 2] .rel.text.aibo_bridge_new REL   00000000 000200 000010 08   I 10   1  4
  [ 3] .rodata.cst16     PROGBITS        00000000 000134 000010 10  AM  0   0  8
  [ 4] .data.rel.ro.x    PROGBITS        00000000 000144 000008 00  WA  0   0  4
  [ 5] .symtab           SYMTAB          00000000 000300 000100 10     6   1  4
  [ 6] {extra}           PROGBITS        00000000 000400 000010 00      0   0  1
"
            )
        };
        assert_eq!(sections(&listing(".comment")).unwrap().len(), 6);
        for refused in [".note.GNU-stack", ".MIPS.abiflags", ".eh_frame", ".textual"] {
            let e = sections(&listing(refused)).unwrap_err();
            assert!(e.contains(refused), "{e}");
        }
    }

    /// A disassembly as `objdump -dr -M no-aliases` prints one: `f` calls `g` directly and
    /// `h` through a vtable in `.data.rel.ro.vt`.
    const DISASSEMBLY: &str = "
Disassembly of section .text.f:

00000000 <f>:
   0:\t27bdffc0 \taddiu\tsp,sp,-64
   4:\t8f990000 \tlw\tt9,0(gp)
\t\t\t4: R_MIPS_CALL16\tg
   8:\t8f840000 \tlw\ta0,0(gp)
\t\t\t8: R_MIPS_GOT16\t.data.rel.ro.vt
   c:\t0320f809 \tjalr\tt9
  10:\t27bd0040 \taddiu\tsp,sp,64

00000000 <g>:
   0:\t27bdffe0 \taddiu\tsp,sp,-32
   4:\t03c0e825 \tor\tsp,s8,zero
   8:\t03e00008 \tjr\tra

00000000 <h>:
   0:\t27bdfb00 \taddiu\tsp,sp,-1280
   4:\t00021023 \tnegu\tv0,v0
";

    const VTABLES: &str = "
Relocation section '.rel.data.rel.ro.vt' at offset 0x1 contains 1 entry:
 Offset     Info    Type                Sym.Value  Sym. Name
00000000  00000302 R_MIPS_32              00000000   h
";

    #[test]
    fn the_worst_stack_counts_calls_through_a_vtable_and_names_the_chain() {
        let code = disassembly(DISASSEMBLY).unwrap();
        assert_eq!(code.functions["f"].frame, 64);
        assert_eq!(code.functions["g"].frame, 32);
        assert!(beyond_mips2(&code.census).is_empty());
        let tables = data_references(VTABLES);
        let none = BTreeMap::new();
        let graph = CallGraph::new(&code.functions, &tables, &none);
        let worst = graph.worst("f").unwrap();
        assert_eq!(worst.bytes, 64 + 1280, "{worst:?}");
        assert_eq!(worst.path, [("f".to_string(), 64), ("h".to_string(), 1280)]);
        // Without the vtable's entry, the direct call is the deepest.
        let no_tables = BTreeMap::new();
        let graph = CallGraph::new(&code.functions, &no_tables, &none);
        assert_eq!(graph.worst("f").unwrap().bytes, 64 + 32);
    }

    #[test]
    fn recursion_and_unsizable_frames_are_refused_not_guessed() {
        let recursive = DISASSEMBLY.replace(
            "R_MIPS_32              00000000   h",
            "R_MIPS_32 00000000 f",
        );
        let code = disassembly(&recursive).unwrap();
        let mut tables = data_references(VTABLES);
        tables.insert(".data.rel.ro.vt".into(), ["f".to_string()].into());
        let none = BTreeMap::new();
        let e = CallGraph::new(&code.functions, &tables, &none)
            .worst("f")
            .unwrap_err();
        assert!(e.contains("recursion") && e.contains("f → f"), "{e}");

        let dynamic = DISASSEMBLY.replace("or\tsp,s8,zero", "subu\tsp,sp,v0");
        let e = disassembly(&dynamic).unwrap_err();
        assert!(e.contains("cannot be sized"), "{e}");
    }

    #[test]
    fn instructions_past_mips2_are_named() {
        let later = DISASSEMBLY
            .replace("negu\tv0,v0", "mul\tv0,v0,v1")
            .replace("jr\tra", "ld\tv0,0(a0)");
        let code = disassembly(&later).unwrap();
        assert_eq!(beyond_mips2(&code.census), ["ld (1)", "mul (1)"]);
    }
}
