//! Texture and surface objects: CUDA's bindless `cudaTextureObject_t` and
//! `cudaSurfaceObject_t`, as the executor models them.
//!
//! A kernel receives a texture or surface object as a 64-bit handle (an
//! `i64` argument) and reads or writes it with PTX's `tex`, `suld` and
//! `sust` (inline PTX in clang's CUDA headers, run by `inline_ptx.rs`).
//! The harness creates the objects over buffers of the [`Memory`] and
//! passes the handles it gets back:
//!
//! * [`Memory::create_texture_1d`]: a *linear* texture
//!   (`cudaResourceTypeLinear`, element read mode, unnormalised integer
//!   coordinates) whose texels are the elements of a 1-D buffer, one
//!   channel each. A fetch (`tex.1d.v4.{f32,s32,u32}.s32`, CUDA's
//!   `tex1Dfetch<T>`) reads texel `x` without filtering; it must read the
//!   buffer's element type (`f32` texels for `.f32`, 32-bit integer texels
//!   for `.s32`/`.u32`). An `x` outside the texture reads per the
//!   texture's [`TextureAddressMode`]: zeros ([`TextureAddressMode::Border`],
//!   what CUDA's linear textures give) or the nearest texel
//!   ([`TextureAddressMode::Clamp`]). The vector result holds the texel
//!   in its first component and zeros in the other three (a one-channel
//!   texture; the model's choice, the examples read only `.x`).
//! * [`Memory::create_surface_2d`]: a 2D surface (a `cudaArray` created
//!   with `cudaArraySurfaceLoadStore`) of `height` rows of `width`
//!   elements, row `y` starting `y * pitch` bytes into the buffer (the
//!   rows may be padded: `pitch >= width * element size`). Accesses
//!   (`sust.b.2d.bN`, `suld.b.2d.bN`, CUDA's `surf2Dwrite`/`surf2Dread`)
//!   take the x coordinate in *bytes*, as CUDA does, and must cover
//!   exactly one element (`N` bits, the element's size, at an `x` that is
//!   a multiple of it); the bits are the element's, reinterpreted. An
//!   access outside the surface follows the instruction's mode: `.trap`
//!   is an error ([`MemoryError::SurfaceOutOfBounds`]), `.clamp` clamps
//!   the coordinates into the surface, `.zero` reads zeros and drops the
//!   write. Writes are logged like stores, by the thread that made them.
//!
//! Handles are opaque: each object gets the next one of a sequence that
//! does not start at 0, so a handle passed by mistake (an index, a null
//! object) is reported: [`MemoryError::UnknownTexture`] or
//! [`MemoryError::UnknownSurface`] (also for a handle of the other kind).
//!
//! Texture *references* (`texture<float, 1>`, bound at module scope) are
//! gone from CUDA 12's headers and are not modelled.

use crate::address::{address_space, BufferId, MemRefId, Pointer};
use crate::memory::{ElementType, Memory, MemoryError};
use crate::value::{IntValue, Value};

/// What a texture fetch outside the texture reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureAddressMode {
    /// Zeros (`cudaAddressModeBorder`; what a linear texture gives).
    #[default]
    Border,
    /// The nearest texel (`cudaAddressModeClamp`).
    Clamp,
}

/// How a surface instruction treats coordinates outside the surface
/// (PTX's `.trap`, `.clamp`, `.zero`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SurfaceClamp {
    /// An error.
    Trap,
    /// The nearest element of the surface.
    Clamp,
    /// Loads read zero, stores do nothing.
    Zero,
}

impl SurfaceClamp {
    /// The mode of a PTX suffix.
    pub fn of(suffix: &str) -> Option<Self> {
        Some(match suffix {
            "trap" => Self::Trap,
            "clamp" => Self::Clamp,
            "zero" => Self::Zero,
            _ => return None,
        })
    }
}

/// The first handle given out.
const FIRST_HANDLE: u64 = 0x7e00_0000_0001;

/// A texture or surface object.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Object {
    Texture {
        buffer: BufferId,
        texels: u64,
        element: ElementType,
        mode: TextureAddressMode,
    },
    Surface {
        buffer: BufferId,
        element: ElementType,
        /// Bytes of a row's elements.
        width_bytes: u64,
        height: u64,
        pitch: u64,
    },
}

/// The objects of a memory, by handle.
#[derive(Default)]
pub(crate) struct Objects {
    objects: Vec<Object>,
}

impl Objects {
    fn create(&mut self, object: Object) -> u64 {
        self.objects.push(object);
        FIRST_HANDLE + self.objects.len() as u64 - 1
    }

    fn get(&self, handle: u64) -> Option<Object> {
        let index = handle.checked_sub(FIRST_HANDLE)?;
        self.objects.get(usize::try_from(index).ok()?).copied()
    }
}

/// Where a surface access goes: the element's pointer, or nowhere (a
/// `.zero` access outside the surface).
type SurfaceTarget = Option<(Pointer, ElementType)>;

impl Memory {
    /// A linear 1-D texture over the buffer of `memref` (one texel per
    /// element) with `mode` for fetches outside it; its handle, to pass as
    /// a `cudaTextureObject_t` (`i64`) argument. See the
    /// [module docs](self).
    pub fn create_texture_1d(
        &mut self,
        memref: MemRefId,
        mode: TextureAddressMode,
    ) -> Result<u64, MemoryError> {
        let buffer = self
            .buffer_of(memref)
            .ok_or(MemoryError::UnknownMemRef(memref))?;
        let element = self
            .element_type(buffer)
            .ok_or(MemoryError::UnknownBuffer(buffer))?;
        let texels = self.buffer_bytes(buffer).unwrap_or(0) / element.size_bytes();
        Ok(self.objects.create(Object::Texture {
            buffer,
            texels,
            element,
            mode,
        }))
    }

    /// A 2D surface of `height` rows of `width` elements over the buffer of
    /// `memref`, row `y` at byte `y * pitch`; its handle, to pass as a
    /// `cudaSurfaceObject_t` (`i64`) argument. The rows must fit the
    /// buffer and `pitch` must hold a row and be a multiple of the
    /// element's size ([`MemoryError::InvalidSurface`] otherwise). See the
    /// [module docs](self).
    pub fn create_surface_2d(
        &mut self,
        memref: MemRefId,
        width: u64,
        height: u64,
        pitch: u64,
    ) -> Result<u64, MemoryError> {
        let buffer = self
            .buffer_of(memref)
            .ok_or(MemoryError::UnknownMemRef(memref))?;
        let element = self
            .element_type(buffer)
            .ok_or(MemoryError::UnknownBuffer(buffer))?;
        let buffer_bytes = self.buffer_bytes(buffer).unwrap_or(0);
        let width_bytes = width.checked_mul(element.size_bytes());
        let fits = width_bytes.is_some_and(|row| {
            row <= pitch
                && pitch.is_multiple_of(element.size_bytes())
                && pitch
                    .checked_mul(height)
                    .is_some_and(|bytes| bytes <= buffer_bytes)
        });
        if !fits {
            return Err(MemoryError::InvalidSurface {
                width,
                height,
                pitch,
                buffer_bytes,
            });
        }
        Ok(self.objects.create(Object::Surface {
            buffer,
            element,
            width_bytes: width_bytes.unwrap_or(0),
            height,
            pitch,
        }))
    }

    /// `tex.1d` of texture `handle` at texel `x`, read as `access` (the
    /// texel's type): the texel, or zero or the nearest texel outside the
    /// texture.
    pub(crate) fn texture_fetch_1d(
        &self,
        handle: u64,
        x: i64,
        access: ElementType,
    ) -> Result<Value, MemoryError> {
        let Some(Object::Texture {
            buffer,
            texels,
            element,
            mode,
        }) = self.objects.get(handle)
        else {
            return Err(MemoryError::UnknownTexture(handle));
        };
        if access != element {
            return Err(MemoryError::TexelTypeMismatch {
                handle,
                texel: element,
                access,
            });
        }
        let inside = u64::try_from(x).is_ok_and(|x| x < texels);
        let x = match mode {
            _ if inside => x,
            TextureAddressMode::Border => return Ok(zero_of(access)),
            TextureAddressMode::Clamp if texels == 0 => return Ok(zero_of(access)),
            TextureAddressMode::Clamp => x.clamp(0, texels as i64 - 1),
        };
        let pointer = Pointer::to_buffer(buffer).offset_by(x * element.size_bytes() as i64);
        self.load_pointer(pointer, access, address_space::GENERIC)
    }

    /// The element a surface access of `access` at byte `x`, row `y`,
    /// reaches under `clamp`.
    fn surface_target(
        &self,
        handle: u64,
        (x, y): (i64, i64),
        access: ElementType,
        clamp: SurfaceClamp,
    ) -> Result<SurfaceTarget, MemoryError> {
        let Some(Object::Surface {
            buffer,
            element,
            width_bytes,
            height,
            pitch,
        }) = self.objects.get(handle)
        else {
            return Err(MemoryError::UnknownSurface(handle));
        };
        let size = access.size_bytes();
        if size != element.size_bytes() || x.rem_euclid(size as i64) != 0 {
            return Err(MemoryError::SurfaceMisaligned {
                handle,
                x,
                access,
                element,
            });
        }
        let inside = u64::try_from(x).is_ok_and(|x| x + size <= width_bytes)
            && u64::try_from(y).is_ok_and(|y| y < height);
        let (x, y) = match clamp {
            _ if inside => (x, y),
            SurfaceClamp::Trap => {
                return Err(MemoryError::SurfaceOutOfBounds {
                    handle,
                    x,
                    y,
                    width_bytes,
                    height,
                })
            }
            SurfaceClamp::Zero => return Ok(None),
            SurfaceClamp::Clamp if width_bytes == 0 || height == 0 => return Ok(None),
            SurfaceClamp::Clamp => (
                x.clamp(0, (width_bytes - size) as i64),
                y.clamp(0, height as i64 - 1),
            ),
        };
        let offset = y * pitch as i64 + x;
        Ok(Some((
            Pointer::to_buffer(buffer).offset_by(offset),
            element,
        )))
    }

    /// `suld.b` of surface `handle` at byte `x`, row `y`: the element's
    /// bits as `access` (zero where `clamp` is `.zero` and the
    /// coordinates are outside).
    pub(crate) fn surface_load_2d(
        &self,
        handle: u64,
        coordinates: (i64, i64),
        access: ElementType,
        clamp: SurfaceClamp,
    ) -> Result<Value, MemoryError> {
        match self.surface_target(handle, coordinates, access, clamp)? {
            Some((pointer, _)) => self.load_pointer(pointer, access, address_space::GENERIC),
            None => Ok(zero_of(access)),
        }
    }

    /// `sust.b` of `value` (of type `access`) to surface `handle` at byte
    /// `x`, row `y`, logged for `thread` (nothing where `clamp` is `.zero`
    /// and the coordinates are outside).
    pub(crate) fn surface_store_2d(
        &mut self,
        handle: u64,
        coordinates: (i64, i64),
        access: ElementType,
        value: Value,
        clamp: SurfaceClamp,
        thread: u32,
    ) -> Result<(), MemoryError> {
        match self.surface_target(handle, coordinates, access, clamp)? {
            Some((pointer, _)) => {
                self.store_pointer(pointer, access, address_space::GENERIC, value, thread)
            }
            None => Ok(()),
        }
    }
}

/// The zero of an element type.
fn zero_of(element: ElementType) -> Value {
    match element {
        ElementType::Int(width) => Value::Int(IntValue::wrap(width, 0)),
        ElementType::Index => Value::Index(0),
        ElementType::F32 => Value::F32(0.0),
        ElementType::F64 => Value::F64(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_fetches_read_texels_and_the_border_or_the_edge() {
        let mut memory = Memory::new();
        let floats = memory
            .alloc_values(
                ElementType::F32,
                &[Value::F32(10.0), Value::F32(20.0), Value::F32(30.0)],
            )
            .unwrap();
        let border = memory
            .create_texture_1d(floats, TextureAddressMode::Border)
            .unwrap();
        let clamp = memory
            .create_texture_1d(floats, TextureAddressMode::Clamp)
            .unwrap();
        assert_ne!(border, clamp);
        let fetch = |handle, x| memory.texture_fetch_1d(handle, x, ElementType::F32);
        assert_eq!(fetch(border, 2), Ok(Value::F32(30.0)));
        assert_eq!(fetch(border, 3), Ok(Value::F32(0.0)));
        assert_eq!(fetch(border, -1), Ok(Value::F32(0.0)));
        assert_eq!(fetch(clamp, -5), Ok(Value::F32(10.0)));
        assert_eq!(fetch(clamp, 7), Ok(Value::F32(30.0)));
        // The texel type must be read: no int fetch of float texels.
        assert_eq!(
            memory.texture_fetch_1d(border, 0, ElementType::Int(32)),
            Err(MemoryError::TexelTypeMismatch {
                handle: border,
                texel: ElementType::F32,
                access: ElementType::Int(32)
            })
        );
        // Unknown handles, and a texture used as a surface.
        assert_eq!(fetch(0, 0), Err(MemoryError::UnknownTexture(0)));
        assert_eq!(
            memory.surface_load_2d(border, (0, 0), ElementType::F32, SurfaceClamp::Trap),
            Err(MemoryError::UnknownSurface(border))
        );
        let ints = memory.alloc_i32(&[4, -5]);
        let texture = memory
            .create_texture_1d(ints, TextureAddressMode::Border)
            .unwrap();
        assert_eq!(
            memory.texture_fetch_1d(texture, 1, ElementType::Int(32)),
            Ok(Value::i32(-5))
        );
    }

    #[test]
    fn surfaces_take_byte_coordinates_in_pitched_rows() {
        let mut memory = Memory::new();
        // 2 rows of 3 floats, pitch 16 bytes (one float of padding).
        let rows = memory.alloc(ElementType::F32, &[8]);
        let surface = memory.create_surface_2d(rows, 3, 2, 16).unwrap();
        let store = |memory: &mut Memory, (x, y), value: f32, clamp| {
            memory.surface_store_2d(
                surface,
                (x, y),
                ElementType::Int(32),
                Value::i32(value.to_bits() as i32),
                clamp,
                7,
            )
        };
        store(&mut memory, (8, 1), 2.5, SurfaceClamp::Trap).unwrap();
        let buffer = memory.buffer_of(rows).unwrap();
        assert_eq!(memory.contents(buffer)[6], Value::F32(2.5));
        let effect = memory.side_effects()[0];
        assert_eq!((effect.thread, effect.index), (7, 6));
        assert_eq!(effect.value, Value::F32(2.5));
        assert_eq!(
            memory.surface_load_2d(surface, (8, 1), ElementType::F32, SurfaceClamp::Trap),
            Ok(Value::F32(2.5))
        );
        // Past the row's 12 bytes (into the padding), and past the rows.
        assert!(matches!(
            store(&mut memory, (12, 0), 1.0, SurfaceClamp::Trap),
            Err(MemoryError::SurfaceOutOfBounds { x: 12, y: 0, .. })
        ));
        assert!(matches!(
            store(&mut memory, (0, 2), 1.0, SurfaceClamp::Trap),
            Err(MemoryError::SurfaceOutOfBounds { .. })
        ));
        store(&mut memory, (12, 0), 1.0, SurfaceClamp::Zero).unwrap();
        assert_eq!(memory.side_effects().len(), 1);
        store(&mut memory, (400, -3), 4.0, SurfaceClamp::Clamp).unwrap();
        assert_eq!(memory.contents(buffer)[2], Value::F32(4.0));
        assert_eq!(
            memory.surface_load_2d(surface, (-4, 9), ElementType::F32, SurfaceClamp::Zero),
            Ok(Value::F32(0.0))
        );
        // Misaligned x, a size other than the element's.
        assert!(matches!(
            store(&mut memory, (2, 0), 1.0, SurfaceClamp::Trap),
            Err(MemoryError::SurfaceMisaligned { x: 2, .. })
        ));
        assert!(matches!(
            memory.surface_load_2d(surface, (0, 0), ElementType::F64, SurfaceClamp::Trap),
            Err(MemoryError::SurfaceMisaligned { .. })
        ));
        // Layouts that do not fit.
        assert!(matches!(
            memory.create_surface_2d(rows, 5, 2, 16),
            Err(MemoryError::InvalidSurface { .. })
        ));
        assert!(matches!(
            memory.create_surface_2d(rows, 3, 3, 16),
            Err(MemoryError::InvalidSurface { .. })
        ));
        assert!(matches!(
            memory.create_surface_2d(rows, 2, 2, 10),
            Err(MemoryError::InvalidSurface { .. })
        ));
    }
}
