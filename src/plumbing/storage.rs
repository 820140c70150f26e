//! The browser's localStorage and sessionStorage, reached without web-sys features.

use wasm_bindgen::{JsCast, JsValue};

/// `localStorage.<method>(args)` through the JS object (no web-sys feature); `None` where
/// storage is refused (sandboxed frames, privacy modes).
pub fn storage(which: &str, method: &str, args: &[&str]) -> Option<JsValue> {
    let window: JsValue = web_sys::window()?.into();
    let storage = js_sys::Reflect::get(&window, &JsValue::from_str(which)).ok()?;
    let f: js_sys::Function = js_sys::Reflect::get(&storage, &JsValue::from_str(method)).ok()?.dyn_into().ok()?;
    let args: js_sys::Array = args.iter().map(|a| JsValue::from_str(a)).collect();
    f.apply(&storage, &args).ok()
}
