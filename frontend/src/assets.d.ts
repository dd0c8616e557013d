declare module "*.svg" {
  const url: string;
  export default url;
}
declare module "*.png" {
  const url: string;
  export default url;
}
declare module "*.css";
/** webpack's nonce for the style and script elements it and the libraries create (get-nonce). */
declare let __webpack_nonce__: string | undefined;
