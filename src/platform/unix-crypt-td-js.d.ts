// The package ships no types: crypt(3) of a password with a two-character salt.
declare module "unix-crypt-td-js" {
  export default function unixCryptTD(password: string, salt: string): string;
}
