(module (func (export "other")))
