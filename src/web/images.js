// Images a person attaches (src/web/images.rs): the files of a paste, a
// drop or a file input, each read and, when larger than the core's
// MAX_SIDE, drawn smaller on a canvas, as a data: URL. It decides
// nothing about which types, how many or which models (core::image), and
// sends nothing anywhere.

const TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

// The files an event carries: a paste's, a drop's or an input's.
export function filesOf(event) {
  const list = (event.clipboardData || event.dataTransfer || event.target || {}).files;
  return Array.from(list || []);
}

function dataUrl(blob) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

// One file as a data: URL of at most maxSide pixels a side, or null when
// it is not an image of an accepted type or cannot be decoded. A small
// image keeps its bytes; a larger one, or a GIF drawn anew, is written as
// PNG (GIF, PNG) or in its own type (JPEG, WebP).
export async function readImage(file, maxSide) {
  if (!TYPES.includes(file.type)) return null;
  let bitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return null;
  }
  const { width, height } = bitmap;
  const scale = Math.min(1, maxSide / Math.max(width, height));
  if (scale === 1 && file.size <= 3 * 1024 * 1024) {
    bitmap.close();
    return dataUrl(file);
  }
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const type = file.type === 'image/jpeg' || file.type === 'image/webp' ? file.type : 'image/png';
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, type, 0.9));
  return blob ? dataUrl(blob) : null;
}
