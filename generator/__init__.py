"""cubind generator: CUDA headers --libclang--> IR (JSON) --Jinja2--> C sources."""

VERSION = "0.1.0"
