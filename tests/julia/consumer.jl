# tests/julia/consumer.jl PACKAGES EXPECTED - the Julia module Cubind on the mocks (tests/julia/run.sh).
#
# PACKAGES is the folder that holds Cubind/ (LOAD_PATH); EXPECTED what the IR and constants.json say
# (tests/julia/expected.py): every constant has its C value, every record the IR's size and each of its
# fields C's offset (or lies in bytes the struct holds for it), every wrapper exists with its parameters
# and says in its docstring which function it wraps and since which CUDA. Then calls on the mocks
# (cuBLAS's create scripted by run.sh to fail on its second call, cuRAND missing): a call that succeeds,
# the scripted failure thrown by @check as a CubindError with cubind's record, and the missing library's.
# Last line: `julia: N passed, M failed`.
push!(LOAD_PATH, ARGS[1])
using Cubind

passed = 0
failures = String[]
function expect(ok::Bool, what)
    global passed
    ok ? (passed += 1) : push!(failures, string(what))
    ok
end

value(name) = isdefined(Cubind, Symbol(name)) ? getfield(Cubind, Symbol(name)) : nothing

# --- what the IR and constants.json say ---------------------------------------------------------------
docs = Base.Docs.meta(Cubind)
doc_text(name) = (b = Base.Docs.Binding(Cubind, Symbol(name));
                  haskey(docs, b) ? join((join(d.text) for d in values(docs[b].docs)), "\n") : "")
counts = Dict{String,Int}()
for line in eachline(ARGS[2])
    fact = split(line, '\t')
    counts[fact[1]] = get(counts, fact[1], 0) + 1
    if fact[1] == "value"
        name, kind, text = fact[2], fact[3], fact[4]
        v = value(name)
        want = kind == "int" ? parse(BigInt, text) : kind == "float" ? parse(Float64, text) :
               kind == "string" ? String(hex2bytes(text)) : parse(BigInt, text)
        got = v isa Ptr ? UInt(v) : v
        expect(got !== nothing && got == want && (kind != "float" || v isa AbstractFloat),
               "constant $name is $(repr(v)), C's $text ($kind)")
    elseif fact[1] == "record"
        T = value(fact[2])
        expect(T isa DataType && isbitstype(T) && sizeof(T) == parse(Int, fact[3]),
               "record $(fact[2]): $(T isa DataType && isbitstype(T) ? sizeof(T) : repr(T)) bytes, C's $(fact[3])")
    elseif fact[1] == "field"
        T = value(fact[2])
        T isa DataType || continue  # counted by its record
        offset = parse(Int, fact[4])
        names = fieldnames(T)
        at = findfirst(==(Symbol(fact[3])), names)
        if at !== nothing
            expect(fieldoffset(T, at) == offset, "$(fact[2]).$(fact[3]) at $(fieldoffset(T, at)), C's $offset")
        else  # held as bytes: a field _bytesN must cover its offset
            covered = any(i -> startswith(String(names[i]), "_bytes") &&
                               fieldoffset(T, i) <= offset < fieldoffset(T, i) + sizeof(fieldtype(T, i)), 1:length(names))
            expect(covered, "$(fact[2]).$(fact[3]) (offset $offset) is neither a field nor in the bytes held")
        end
    elseif fact[1] == "function"
        f = value(fact[2])
        n = parse(Int, fact[3])
        expect(f isa Function && hasmethod(f, NTuple{n,Any}), "no wrapper $(fact[2]) of $n parameters")
        text = doc_text(fact[2])
        expect(occursin("Wraps `$(fact[4])`", text) && occursin("since CUDA $(fact[5])", text),
               "the docstring of $(fact[2]) does not say it wraps $(fact[4]) since CUDA $(fact[5]): $text")
    end
end
println("julia: checked $(get(counts, "value", 0)) constants, $(get(counts, "record", 0)) records ",
        "($(get(counts, "field", 0)) fields), $(get(counts, "function", 0)) wrappers against the IR")

# No name the module exports is one Base or Core exports: `using Cubind` hides none of theirs.
clashes = [n for n in names(Cubind) if n != :Cubind && (Base.isexported(Base, n) || Base.isexported(Core, n))]
expect(isempty(clashes), "names exported by Base or Core too: $clashes")

# --- calls on the mocks -------------------------------------------------------------------------------
handle = Ref{cublasHandle_t}(C_NULL)
status = cubind_cublas_create(handle)
expect(status == CUBLAS_STATUS_SUCCESS && status isa cublasStatus_t, "cublasCreate on the mock returned $status")
expect(Cubind.last_error() === nothing, "a successful call recorded an error: $(Cubind.last_error())")

# The second create is scripted to fail (run.sh): @check throws the record as a CubindError.
failure = try
    @check cubind_cublas_create(handle)
    nothing
catch e
    e
end
failed = Int(CUBLAS_STATUS_EXECUTION_FAILED)
if expect(failure isa CubindError, "the scripted failure threw $(repr(failure)), not a CubindError")
    record = unsafe_string(Ptr{Cchar}(cubind_last_error() + Cubind.ERROR_MESSAGE))
    expect(failure.kind == CUBIND_ERROR_STATUS && failure.library == CUBIND_LIB_CUBLAS && failure.status == failed &&
           failure.library_name == "cublas" && failure.function_name == "cublasCreate" &&
           failure.status_name == "CUBLAS_STATUS_EXECUTION_FAILED", "the CubindError is $(repr(failure))")
    expect(failure.message == record && startswith(record, "cublasCreate returned CUBLAS_STATUS_EXECUTION_FAILED ($failed)"),
           "its message is $(repr(failure.message)), cubind's $(repr(record))")
    expect(sprint(showerror, failure) == "CubindError: " * record, "shown as $(sprint(showerror, failure))")
    println("julia: the scripted failure: ", sprint(showerror, failure))
end
# Without @check the wrapper returns the status, as C's does; the third call succeeds again.
expect(cubind_cublas_create(handle) == CUBLAS_STATUS_SUCCESS, "the third cublasCreate failed")
expect((@check cubind_cublas_destroy(handle[])) == CUBLAS_STATUS_SUCCESS, "@check did not return the status")

# cuRAND is missing (run.sh names a file that does not exist): its fixed status, and the record says why.
version = Ref{Cint}(0)
missing_library = try
    @check cubind_curand_get_version(version)
catch e
    e
end
expect(missing_library isa CubindError && missing_library.kind == CUBIND_ERROR_LIBRARY_NOT_FOUND &&
       occursin(ENV["CUBIND_CURAND_PATH"], missing_library.message),
       "the missing cuRAND gave $(repr(missing_library))")
expect(unsafe_string(cubind_library_name(CUBIND_LIB_CURAND)) == "curand", "cubind_library_name")
expect(realpath(Cubind.library_path[]) == realpath(ENV["CUBIND_JULIA_LIBRARY"]),
       "libcubind loaded from $(Cubind.library_path[])")

for f in failures[1:min(end, 20)]
    println("FAILED: ", f)
end
length(failures) > 20 && println("... and $(length(failures) - 20) more")
println("julia: $passed passed, $(length(failures)) failed")
exit(isempty(failures) ? 0 : 1)
