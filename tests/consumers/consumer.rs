// tests/consumers/consumer.rs - Rust with no crates: bindings.rs is what Debian's bindgen makes of
// cubind/cubind.h (see run.sh); see consumer.c for what it prints.
#![allow(non_upper_case_globals, non_camel_case_types, non_snake_case, dead_code)]
include!(concat!(env!("CUBIND_BINDINGS_DIR"), "/bindings.rs"));

use std::ffi::CStr;
use std::os::raw::c_char;

fn text(p: *const c_char) -> String {
    if p.is_null() { "-".to_string() } else { unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned() }
}

fn main() {
    unsafe {
        let count = cubind_library_CUBIND_LIBRARY_COUNT as i32;
        println!("cubind {}, {} libraries", text(cubind_version()), count);
        for lib in 0..count {
            let mut info: cubind_library_info = std::mem::zeroed();
            info.size = std::mem::size_of::<cubind_library_info>() as _; // the caller says how much it has
            let kind = cubind_library_info(lib as cubind_library, &mut info);
            println!("{}: kind {} found {} soname {} version {} functions {} missing {}",
                     text(cubind_library_name(lib as cubind_library)), kind as i32, info.found, text(info.soname),
                     text(info.version_text), info.functions, info.functions_missing);
        }
        cubind_clear_error();
        let mut version: i32 = 0;
        let status = cubind_curand_get_version(&mut version);
        let e = &*cubind_last_error();
        let message = CStr::from_ptr(e.message.as_ptr()).to_string_lossy();
        println!("curandGetVersion: status {} kind {} library {} function {} status_name {} message {}",
                 status as i32, e.kind as i32, text(e.library_name), text(e.function), text(e.status_name), message);
    }
}
