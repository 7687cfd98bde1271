// tests/consumers/rust_sys/main.rs - a program on the installed crate cubind-sys (run.sh builds it
// with Debian's cargo, offline, and runs it on the installed mocks, cuBLAS's cublasCreate_v2 scripted
// to fail with CUBLAS_STATUS_EXECUTION_FAILED): two libraries' wrappers, statuses by their C names,
// and the error record read through the crate's safe helper.
use cubind_sys::error;
use cubind_sys::*;

fn main() {
    // cuFFT: a wrapper through the Result helper, its status by name
    let mut version = 0;
    let status = error::call(|| unsafe { cubind_cufft_get_version(&mut version) })
        .unwrap_or_else(|e| panic!("cufftGetVersion failed: {}", e));
    assert_eq!(status, CUFFT_SUCCESS);
    println!("cufft: version {}", version);

    // cuBLAS: the scripted failure, as a status and as the error record
    let mut handle: cublasHandle_t = std::ptr::null_mut();
    let status = unsafe { cubind_cublas_create(&mut handle) };
    assert_eq!(status, CUBLAS_STATUS_EXECUTION_FAILED, "cublasCreate returned {}", status);
    let record = error::last_error().expect("a failed call leaves an error record");
    assert_eq!(record.kind, CUBIND_ERROR_STATUS);
    assert_eq!(record.library, CUBIND_LIB_CUBLAS);
    assert_eq!(record.status, CUBLAS_STATUS_EXECUTION_FAILED as i32);
    println!("cublas: {} {} {} {}", record.library_name, record.function, record.status_name, record.message);
    assert_eq!(error::last_error_message(), record.message);

    // the same failure through the Result helper; clear_error forgets it
    match error::call(|| unsafe { cubind_cublas_create(&mut handle) }) {
        Ok(status) => panic!("cublasCreate succeeded ({}) although scripted to fail", status),
        Err(e) => println!("call: Err({}: {})", e.status_name, e),
    }
    error::clear_error();
    assert!(error::last_error().is_none());
    println!("rust-sys: done");
}
